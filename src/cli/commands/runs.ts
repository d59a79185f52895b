import { humanDuration } from '../../core/time.js';
import type { RunRecord } from '../../core/run-record.js';
import { resolveAgent } from '../../store/home.js';
import { listRuns } from '../../store/runs.js';
import type { Ctx } from '../context.js';
import { parseLimit } from '../limit.js';
import { out, printJson, table } from '../output.js';

const tokens = (r: RunRecord) => (r.tokens ? `${r.tokens.uncached_input + r.tokens.cache_read + r.tokens.cache_write}/${r.tokens.output}` : '-');

/** `holon runs`: the runs the watcher started, oldest first. */
export function run(ctx: Ctx, _args: string[], opts: { work?: string; json?: boolean; limit?: string }): void {
  const home = ctx.home();
  const agent = ctx.globals.agent ? resolveAgent(home, ctx.globals.agent, {}) : undefined;
  const limit = parseLimit(opts.limit);
  let runs = listRuns(home, { agent, work: opts.work });
  if (limit) runs = runs.slice(-limit);
  if (opts.json) return printJson({ runs });
  if (!runs.length) return out(`no runs yet${agent ? ` for ${agent}` : ''}${opts.work ? ` on ${opts.work}` : ''} (holon watch starts them)`);
  out(table([
    ['RUN', 'AGENT', 'ITEM', 'REASON', 'STATUS', 'STARTED', 'TOOK', 'TOKENS IN/OUT', 'COST', 'PROGRESS'],
    ...runs.map((r) => [
      r.id, r.agent, r.work_item, r.reasons.join('+'), r.status + (r.blocked ? ' (blocked item)' : ''), r.started_at,
      r.duration_ms === null ? '-' : humanDuration(r.duration_ms), tokens(r), r.cost_usd === null ? '-' : `$${r.cost_usd.toFixed(4)}`,
      r.progress === null ? '-' : r.progress ? 'yes' : 'no',
    ]),
  ]));
}
