import { HolonError, invalid, usage } from '../../core/errors.js';
import { computeFrontier, prepare, runnableInOrder } from '../../core/frontier.js';
import { parseDuration } from '../../core/time.js';
import { viewOf, workItemJson } from '../../core/workitem.js';
import { claimWork } from '../../store/claims.js';
import { writeFocus } from '../../store/focus.js';
import { loadFrontierInput } from '../../store/frontier-input.js';
import { readWorkFile, workFile } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { holderOf } from '../holder.js';
import { note, out, printJson } from '../output.js';
import { waitSummary } from '../render.js';
import { targetItem } from '../work-args.js';

/** Sets the agent's focus. Focus is not running: the item may be waiting, and others keep their state. */
export async function run(ctx: Ctx, args: string[], opts: { json?: boolean; ttl?: string }): Promise<void> {
  if (!args[0]) return pickNext(ctx, opts);
  // With an id, pick only sets the focus: a lease length would be silently dropped.
  if (opts.ttl !== undefined) throw usage('--ttl applies only to `holon pick` without an id (which claims)', `to lease this item: holon claim ${args[0]} --ttl ${opts.ttl}`);
  const ref = targetItem(ctx, args[0]);
  const view = viewOf(readWorkFile(ref.file, ref.id));
  const agent = ref.agent;
  const focus = await writeFocus(ctx.home(), agent, ref.id, ctx.nowMs);
  if (opts.json) return printJson({ agent, focus: focus.work_item, since: focus.since, item: workItemJson(view) });
  out(`${ref.id}  ${view.title}`);
  const waiting = waitSummary(view.waits, ctx.nowMs);
  if (view.status !== 'open') note(`note: this item is ${view.status}`);
  if (waiting) note(`note: it waits for ${waiting}; focus does not clear waits`);
}

/**
 * `holon pick` with no id: the top runnable item of the frontier, claimed in one step. When another
 * process wins the claim race, the next runnable item is tried.
 */
async function pickNext(ctx: Ctx, opts: { json?: boolean; ttl?: string }): Promise<void> {
  const home = ctx.home();
  const agent = ctx.agent();
  const holder = holderOf(ctx, agent);
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
    const view = viewOf(claimed.doc);
    if (opts.json) return printJson({ agent, focus: focus.work_item, since: focus.since, claim: view.claim, item: workItemJson(view), skipped: lost });
    out(`${ref.id}  ${view.title}`);
    note(`claimed by ${holder}${view.claim?.expires_at ? ` until ${view.claim.expires_at}` : ''}; now the focus of ${agent}`);
    return;
  }
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
