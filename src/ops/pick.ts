import { conflict, HolonError, invalid } from '../core/errors.js';
import type { Frontier } from '../core/frontier.js';
import { parseDuration } from '../core/time.js';
import { viewOf, type WorkView } from '../core/workitem.js';
import { claimWork } from '../store/claims.js';
import { writeFocus, type Focus } from '../store/focus.js';
import { channelEntries } from '../store/frontier-entry-text.js';
import { readWorkFile, workFile, type WorkRef } from '../store/work-store.js';
import type { OpsCtx } from './context.js';
import { frontierHead, frontierParts, partsBytes } from './frontier.js';
import { holderOf } from './holder.js';

/** Sets the agent's focus. Focus is not running: the item may be waiting, and others keep their state. */
export async function pick(ctx: OpsCtx, ref: WorkRef): Promise<{ agent: string; focus: Focus; item: WorkView }> {
  const item = viewOf(readWorkFile(ref.file, ref.id));
  const focus = await writeFocus(ctx.home(), ref.agent, ref.id, ctx.nowMs);
  return { agent: ref.agent, focus, item };
}

const raiseChanged = (): never => {
  throw conflict('the frontier changed while pick read it', 'run holon pick again');
};

/**
 * Some hundred entries: a claim race lost on all of them is rare enough to cost a parse of the whole.
 * (No more: each 4 KB of fresh memory is a page fault, some microseconds apiece on a virtual machine.)
 */
const LEADING_BYTES = 32 * 1024;

/**
 * The first parts of an answer, joined up to some `max` bytes past which no more are taken: an answer
 * is megabytes at 50,000 items (a patched one many parts), and the top entries of runnable (which come
 * first) are all a claim reads. An entry cut off at the end is not read from it (channelEntries then
 * parses the whole answer).
 */
function leadingBytes(parts: Array<string | Uint8Array>, max: number): Buffer {
  const taken: Uint8Array[] = [];
  let size = 0;
  for (const p of parts) {
    if (size >= max) break;
    const b = typeof p === 'string' ? Buffer.from(p) : p;
    // A part can be most of the answer (a run of old entries kept as they were): only its start.
    taken.push(b.subarray(0, max - size));
    size += Math.min(b.length, max - size);
  }
  return Buffer.concat(taken);
}

/**
 * The claim of the top runnable item and the focus on it; `ref` null when nothing could be claimed.
 * The items tried are the runnable channel of the frontier's answer (in full, in frontier order), so a
 * pick whose home did not change since the last `holon frontier` or `pick` reads that answer from its
 * cache (ops/frontier.ts) rather than evaluating the graph again. `agent` and `holder` are the ones the
 * answer is computed for: the context's agent and holderOf it.
 */
export async function claimNext(ctx: OpsCtx, opts: { ttl?: string }, agent: string, holder: string): Promise<{ answer: () => Buffer; whole: () => Buffer | null; lost: string[]; ref: WorkRef | null; focus: Focus | null; view: WorkView | null }> {
  const home = ctx.home();
  const ttlMs = opts.ttl ? parseDuration(opts.ttl, '--ttl') : null;
  const { parts, rest } = await frontierHead(ctx, LEADING_BYTES);
  let bytes: Buffer | null | undefined;
  // All of it, when only its start was read: the same answer's rest, or null when another call stored
  // a new one meanwhile. The runnable entries past the start are tried only from the same answer
  // (every claim in the first 32 KB lost, and the frontier moved: then a retry).
  const whole = () => (bytes === undefined ? (bytes = rest ? rest() : partsBytes(parts)) : bytes);
  const answer = () => whole() ?? raiseChanged();
  const lost: string[] = [];
  for (const e of channelEntries(leadingBytes(parts, LEADING_BYTES), 'runnable', answer)) {
    const ref = { agent: e.agent || agent, id: e.id, file: workFile(home, e.agent || agent, e.id) };
    let claimed;
    try {
      claimed = await claimWork(home, ref, { holder, nowMs: ctx.nowMs, ttl: opts.ttl ?? null, ttlMs });
    } catch (err) {
      if (err instanceof HolonError && (err.kind === 'conflict' || err.kind === 'invalid' || err.kind === 'notFound')) {
        lost.push(`${e.id}: ${err.message}`);
        continue;
      }
      throw err;
    }
    const focus = await writeFocus(home, agent, ref.id, ctx.nowMs);
    return { answer, whole, lost, ref, focus, view: viewOf(claimed.doc) };
  }
  return { answer, whole, lost, ref: null, focus: null, view: null };
}

/** The refusal (exit 3) when nothing is runnable, saying why and what a person must decide; `answer` gives the frontier's text (claimNext). */
function nothingRunnable(answer: () => Buffer, agent: string, lost: string[]): never {
  const f = JSON.parse(answer().toString('utf8')) as Frontier;
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
 * The refusal when claimNext claimed nothing, from the answer whose start it read, or (another call
 * stored a new one meanwhile) from the answer now: either says what a person must decide.
 */
export async function nothingClaimed(ctx: OpsCtx, r: { whole: () => Buffer | null; lost: string[] }, agent: string): Promise<never> {
  const text = r.whole() ?? partsBytes(await frontierParts(ctx, {}));
  return nothingRunnable(() => text, agent, r.lost);
}

/**
 * The top runnable item of the frontier, claimed in one step. When another process wins the claim
 * race, the next runnable item is tried; nothing runnable is a refusal (exit 3) saying why.
 */
export async function pickNext(ctx: OpsCtx, opts: { ttl?: string }) {
  const agent = ctx.agent();
  const holder = holderOf(ctx, agent);
  const r = await claimNext(ctx, opts, agent, holder);
  if (!r.ref) return nothingClaimed(ctx, r, agent);
  return { agent, holder, focus: r.focus!, claim: r.view!.claim, item: r.view!, skipped: r.lost };
}
