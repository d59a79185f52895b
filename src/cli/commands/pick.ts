import { invalid } from '../../core/errors.js';
import { viewOf } from '../../core/workitem.js';
import { writeFocus } from '../../store/focus.js';
import { readWorkFile } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { waitSummary } from '../render.js';
import { targetItem } from '../work-args.js';

/** Sets the agent's focus. Focus is not running: the item may be waiting, and others keep their state. */
export async function run(ctx: Ctx, args: string[], opts: { json?: boolean }): Promise<void> {
  if (!args[0]) throw invalid('which WorkItem? `holon pick ID`', 'see `holon list` for the ids');
  const ref = targetItem(ctx, args[0]);
  const view = viewOf(readWorkFile(ref.file, ref.id));
  const agent = ref.agent;
  const focus = await writeFocus(ctx.home(), agent, ref.id, ctx.nowMs);
  if (opts.json) return printJson({ agent, focus: focus.work_item, since: focus.since, item: view });
  out(`${ref.id}  ${view.title}`);
  const waiting = waitSummary(view.waits, ctx.nowMs);
  if (view.status !== 'open') note(`note: this item is ${view.status}`);
  if (waiting) note(`note: it waits for ${waiting}; focus does not clear waits`);
}
