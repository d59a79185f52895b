import { usage } from '../../core/errors.js';
import { pick, pickNext as pickNextOp } from '../../ops/pick.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { waitSummary } from '../render.js';
import { targetItem } from '../work-args.js';

/** Sets the agent's focus. Focus is not running: the item may be waiting, and others keep their state. */
export async function run(ctx: Ctx, args: string[], opts: { json?: boolean; ttl?: string }): Promise<void> {
  if (!args[0]) return pickNext(ctx, opts);
  // With an id, pick only sets the focus: a lease length would be silently dropped.
  if (opts.ttl !== undefined) throw usage('--ttl applies only to `holon pick` without an id (which claims)', `to lease this item: holon claim ${args[0]} --ttl ${opts.ttl}`);
  const ref = targetItem(ctx, args[0]);
  const { agent, focus, item: view } = await pick(ctx, ref);
  if (opts.json) return printJson({ agent, focus: focus.work_item, since: focus.since, item: view });
  out(`${ref.id}  ${view.title}`);
  const waiting = waitSummary(view.waits, ctx.nowMs);
  if (view.status !== 'open') note(`note: this item is ${view.status}`);
  if (waiting) note(`note: it waits for ${waiting}; focus does not clear waits`);
}

/** `holon pick` with no id: the top runnable item of the frontier, claimed in one step. */
async function pickNext(ctx: Ctx, opts: { json?: boolean; ttl?: string }): Promise<void> {
  const { agent, holder, focus, item: view, skipped: lost } = await pickNextOp(ctx, opts);
  if (opts.json) return printJson({ agent, focus: focus.work_item, since: focus.since, claim: view.claim, item: view, skipped: lost });
  out(`${view.id}  ${view.title}`);
  note(`claimed by ${holder}${view.claim?.expires_at ? ` until ${view.claim.expires_at}` : ''}; now the focus of ${agent}`);
}
