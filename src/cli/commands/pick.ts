import { join } from 'node:path';
import { conflict, usage } from '../../core/errors.js';
import { agentDir } from '../../store/home.js';
import { readWorkFile, type WorkRef } from '../../store/work-store.js';
import { holderOf } from '../../ops/holder.js';
import { claimNext, nothingClaimed, pick } from '../../ops/pick.js';
import { workItemJson } from '../../core/workitem.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { claimChange } from '../shared-claims.js';
import { waitSummary } from '../render.js';
import { targetItem } from '../work-args.js';

/** Sets the agent's focus. Focus is not running: the item may be waiting, and others keep their state. */
export async function run(ctx: Ctx, args: string[], opts: { json?: boolean; ttl?: string; sync?: boolean }): Promise<void> {
  if (!args[0]) return pickNext(ctx, opts);
  // With an id, pick only sets the focus: a lease length would be silently dropped.
  if (opts.ttl !== undefined) throw usage('--ttl applies only to `holon pick` without an id (which claims)', `to lease this item: holon claim ${args[0]} --ttl ${opts.ttl}`);
  const ref = targetItem(ctx, args[0]);
  const { agent, focus, item: view } = await pick(ctx, ref);
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
async function pickNext(ctx: Ctx, opts: { json?: boolean; ttl?: string; sync?: boolean }): Promise<void> {
  const home = ctx.home();
  const agent = ctx.agent();
  const holder = holderOf(ctx, agent);
  // Shared claims: an attempt whose push lost is undone and tried again on the newer state.
  let tried: WorkRef | null = null;
  const attempt = async () => {
    const x = await claimNext(ctx, opts, agent, holder);
    tried = x.ref ?? tried;
    return x;
  };
  const r = await claimChange(ctx, opts.sync, `pick for ${holder}`, attempt, (x) => (x.ref ? [x.ref.file, join(agentDir(home, agent), 'focus.yaml')] : []));
  if (!r.ref && tried) {
    const lostTo = readWorkFile((tried as WorkRef).file, (tried as WorkRef).id).item.claim;
    throw conflict(`${(tried as WorkRef).id} was claimed on another clone first, by ${lostTo?.holder ?? 'someone else'}; nothing else is runnable for ${agent}`, 'see `holon frontier`; nothing of this pick was kept');
  }
  if (!r.ref) return nothingClaimed(ctx, r, agent);
  const { ref, focus, view, lost } = r;
  if (opts.json) return printJson({ agent, focus: focus!.work_item, since: focus!.since, claim: view!.claim, item: workItemJson(view!), skipped: lost });
  out(`${ref.id}  ${view!.title}`);
  note(`claimed by ${holder}${view!.claim?.expires_at ? ` until ${view!.claim.expires_at}` : ''}; now the focus of ${agent}`);
}
