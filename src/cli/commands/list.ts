import { invalid } from '../../core/errors.js';
import { STATUSES, type Status } from '../../core/types.js';
import { workItemJson } from '../../core/workitem.js';
import { readFocus } from '../../store/focus.js';
import { loadAgentWork, loadAllWork } from '../../store/work-index.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { itemTable } from '../render.js';

export function run(ctx: Ctx, _args: string[], opts: { all?: boolean; status?: string; everyAgent?: boolean; json?: boolean }): void {
  if (opts.status && !STATUSES.includes(opts.status as Status)) throw invalid(`unknown status "${opts.status}"`, `use one of ${STATUSES.join(', ')}`);
  const home = ctx.home();
  const agent = opts.everyAgent ? null : ctx.agent();
  const loaded = agent ? loadAgentWork(home, agent) : loadAllWork(home);
  const wanted = opts.status ?? (opts.all ? null : 'open');
  const items = loaded.items
    .filter((i) => !wanted || i.status === wanted)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const focus = agent ? readFocus(home, agent).work_item : null;
  if (opts.json) {
    printJson({ agent, focus, items: items.map((i) => ({ ...workItemJson(i), focus: i.id === focus })), problems: loaded.problems });
  } else if (!items.length) {
    out(wanted ? `no ${wanted} WorkItems${agent ? ` for ${agent}` : ''}${opts.all ? '' : ' (--all shows every status)'}` : 'no WorkItems yet: holon new "what must be delivered"');
  } else {
    out(itemTable(items, focus, ctx.nowMs));
  }
  if (loaded.problems.length) {
    note(`holon: ${loaded.problems.length} record(s) could not be read and were skipped:`);
    for (const p of loaded.problems.slice(0, 5)) note(`  ${p.file}:${p.line}: ${p.message}`);
    note('  run `holon check` for details and fixes');
  }
}
