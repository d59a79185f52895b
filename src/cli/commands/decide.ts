import { usage } from '../../core/errors.js';
import { decideGate } from '../../ops/decide.js';
import type { Ctx } from '../context.js';
import { out, printJson } from '../output.js';
import { targetItem } from '../work-args.js';

export async function run(ctx: Ctx, args: string[], opts: { approve?: boolean; reject?: boolean; note?: string; json?: boolean }): Promise<void> {
  if (Boolean(opts.approve) === Boolean(opts.reject)) throw usage('say --approve or --reject (one of them)', 'holon decide GATE --approve [--note "why"]');
  const home = ctx.home();
  const r = await decideGate({ home, ref: targetItem(ctx, args[0]), decision: opts.approve ? 'approved' : 'rejected', note: opts.note, actor: ctx.actor, nowMs: ctx.nowMs });
  if (opts.json) return printJson(r);
  out(`${r.id}  ${r.decision} ${r.scope}${r.changed ? '' : ' (already recorded; nothing changed)'}`);
}
