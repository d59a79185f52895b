import { HolonError, invalid } from '../core/errors.js';
import { computeFrontier, prepare, runnableInOrder } from '../core/frontier.js';
import { parseDuration } from '../core/time.js';
import { viewOf, type WorkView } from '../core/workitem.js';
import { claimWork } from '../store/claims.js';
import { writeFocus, type Focus } from '../store/focus.js';
import { loadFrontierInput } from '../store/frontier-input.js';
import { readWorkFile, workFile, type WorkRef } from '../store/work-store.js';
import type { OpsCtx } from './context.js';
import { holderOf } from './holder.js';

/** Sets the agent's focus. Focus is not running: the item may be waiting, and others keep their state. */
export async function pick(ctx: OpsCtx, ref: WorkRef): Promise<{ agent: string; focus: Focus; item: WorkView }> {
  const item = viewOf(readWorkFile(ref.file, ref.id));
  const focus = await writeFocus(ctx.home(), ref.agent, ref.id, ctx.nowMs);
  return { agent: ref.agent, focus, item };
}

type FrontierInput = Awaited<ReturnType<typeof loadFrontierInput>>['input'];

/** The claim of the top runnable item and the focus on it; `ref` null when nothing could be claimed. */
export async function claimNext(ctx: OpsCtx, opts: { ttl?: string }, agent: string, holder: string): Promise<{ input: FrontierInput; lost: string[]; ref: WorkRef | null; focus: Focus | null; view: WorkView | null }> {
  const home = ctx.home();
  const ttlMs = opts.ttl ? parseDuration(opts.ttl, '--ttl') : null;
  const { input } = await loadFrontierInput(home, agent, { holder, nowMs: ctx.nowMs, cwd: ctx.cwd });
  const runnable = runnableInOrder(prepare(input));
  const lost: string[] = [];
  for (const v of runnable) {
    const ref = { agent: v.item.agent || agent, id: v.item.id, file: workFile(home, v.item.agent || agent, v.item.id) };
    let claimed;
    try {
      claimed = await claimWork(home, ref, { holder, nowMs: ctx.nowMs, ttl: opts.ttl ?? null, ttlMs });
    } catch (err) {
      if (err instanceof HolonError && (err.kind === 'conflict' || err.kind === 'invalid' || err.kind === 'notFound')) {
        lost.push(`${v.item.id}: ${err.message}`);
        continue;
      }
      throw err;
    }
    const focus = await writeFocus(home, agent, ref.id, ctx.nowMs);
    return { input, lost, ref, focus, view: viewOf(claimed.doc) };
  }
  return { input, lost, ref: null, focus: null, view: null };
}

/** The refusal (exit 3) when nothing is runnable, saying why and what a person must decide. */
export function nothingRunnable(input: FrontierInput, agent: string, lost: string[]): never {
  const f = computeFrontier(input);
  const c = f.counts;
  const lines: string[] = [];
  if (f.needs_decision.length) {
    lines.push('a person must decide:');
    for (const d of f.needs_decision) lines.push(`  ${d.id} ${d.scope ?? ''} "${d.title}"${d.blocks.length ? ` (blocks ${d.blocks.join(', ')})` : ''}: holon decide ${d.id} --approve|--reject`);
  }
  if (lost.length) lines.push(`lost the claim race on: ${lost.join('; ')}`);
  lines.push('see `holon frontier` for why each item is not runnable');
  throw invalid(
    `nothing is runnable for ${agent} (needs_decision ${c.needs_decision}, needs_action ${c.needs_action}, waiting ${c.waiting}, resume_candidates ${c.resume_candidates}, not_runnable ${c.not_runnable})`,
    lines.join('\n'),
  );
}

/**
 * The top runnable item of the frontier, claimed in one step. When another process wins the claim
 * race, the next runnable item is tried; nothing runnable is a refusal (exit 3) saying why.
 */
export async function pickNext(ctx: OpsCtx, opts: { ttl?: string }) {
  const agent = ctx.agent();
  const holder = holderOf(ctx, agent);
  const r = await claimNext(ctx, opts, agent, holder);
  if (!r.ref) return nothingRunnable(r.input, agent, r.lost);
  return { agent, holder, focus: r.focus!, claim: r.view!.claim, item: r.view!, skipped: r.lost };
}
