import { humanDuration } from '../../core/time.js';
import { fmtTokens, sumRuns, type RunRecord, type RunTotals } from '../../core/run-record.js';
import { HolonError, usage } from '../../core/errors.js';
import { resolveAgent } from '../../store/home.js';
import { findRun, listRuns, readLogTail, runLogFile } from '../../store/runs.js';
import type { Ctx } from '../context.js';
import { parseLimit } from '../limit.js';
import { dim, note, out, printJson, table, truncate } from '../output.js';
import { relPath } from '../render.js';
import { budgetJson, type BudgetJson } from '../../core/budget.js';
import { budgetsConfigured, dailyBudgetState, itemBudgetState } from '../../store/budget.js';
import { readWorkFile } from '../../store/work-store.js';
import { targetItem } from '../work-args.js';

const tokens = (r: RunRecord) => (r.tokens ? `${r.tokens.uncached_input + r.tokens.cache_read + r.tokens.cache_write}/${r.tokens.output}` : '-');
const cost = (c: number | null) => (c === null ? '-' : `$${c.toFixed(4)}`);
const status = (r: RunRecord) => r.status + (r.blocked ? ' (blocked item)' : '');

/** Token use and cost per agent over the listed runs. */
function totalsByAgent(runs: RunRecord[]): Array<{ agent: string } & RunTotals> {
  const agents = [...new Set(runs.map((r) => r.agent))].sort();
  return agents.map((agent) => ({ agent, ...sumRuns(runs.filter((r) => r.agent === agent)) }));
}

const totalsLine = (t: { agent: string } & RunTotals) => `total ${t.agent}: ${t.runs} run${t.runs === 1 ? '' : 's'}, ${t.tokens ? fmtTokens(t.tokens) : 'no token figures'}${t.cost_usd !== null ? `, ${cost(t.cost_usd)}` : ''}`;

/** `holon runs`: the runs the watcher started, oldest first, with each failed run's cause and totals per agent. */
export function run(ctx: Ctx, args: string[], opts: { work?: string; json?: boolean; limit?: string }): void {
  if (args.length) throw usage(`unknown runs argument "${args[0]}"`, 'holon runs [--work ID] [--limit N], or holon runs show RUN');
  const home = ctx.home();
  const agent = ctx.globals.agent ? resolveAgent(home, ctx.globals.agent, {}) : undefined;
  const limit = parseLimit(opts.limit);
  let runs = listRuns(home, { agent, work: opts.work });
  if (limit) runs = runs.slice(-limit);
  const now = ctx.nowMs;
  const totals = totalsByAgent(runs).map((t) => {
    // A malformed daily budget is reported beside the agent's totals, not thrown: the runs are still
    // worth listing (the frontier and the watcher refuse it, each with the same message).
    let d;
    try {
      if (!budgetsConfigured(home, t.agent).daily) return t;
      d = dailyBudgetState(home, t.agent, now);
    } catch (err) {
      if (!(err instanceof HolonError)) throw err;
      return { ...t, daily_budget_error: err.hint ? `${err.message} (fix: ${err.hint})` : err.message };
    }
    return { ...t, daily_budget: { ...budgetJson(d.budget, d.source, d.spent, d.verdict), day: d.day, timezone: d.timezone, resets_at: d.resets_at } };
  });
  const { budget: item, error } = opts.work ? itemBudgetOf(ctx, opts.work) : { budget: null, error: null };
  if (opts.json) return printJson({ runs, totals, ...(opts.work ? { budget: item } : {}), ...(error ? { budget_error: error } : {}) });
  if (error) note(`budget of ${opts.work} is unreadable: ${error}`);
  if (!runs.length) return out(`no runs yet${agent ? ` for ${agent}` : ''}${opts.work ? ` on ${opts.work}` : ''} (holon watch starts them)`);
  out(table([
    ['RUN', 'AGENT', 'ITEM', 'REASON', 'STATUS', 'STARTED', 'TOOK', 'TOKENS IN/OUT', 'COST', 'PROGRESS', 'CAUSE'],
    ...runs.map((r) => [
      r.id, r.agent, r.work_item, r.reasons.join('+'), status(r), r.started_at,
      r.duration_ms === null ? '-' : humanDuration(r.duration_ms), tokens(r), cost(r.cost_usd),
      r.progress === null ? '-' : r.progress ? 'yes' : 'no',
      r.cause ? truncate(`${r.status !== 'ok' && r.outside ? '[outside] ' : ''}${r.cause}`, 100) : '-',
    ]),
  ]));
  out('');
  for (const t of totals) {
    out(totalsLine(t));
    const d = 'daily_budget' in t ? t.daily_budget : null;
    if (d) out(`daily budget of ${t.agent} for ${d.day} (${d.timezone}): ${d.state}: ${leftLine(d)}; resets at ${d.resets_at}`);
    if ('daily_budget_error' in t) note(`daily budget of ${t.agent} is unreadable: ${t.daily_budget_error}`);
  }
  if (item) out(`budget of ${opts.work}: ${item.state}: ${leftLine(item)}`);
}

/**
 * The item's budget, spent and left, for `runs --work` (null when the id names no item here); a
 * malformed budget is reported, not thrown (as `show` does): the runs are still worth listing.
 */
function itemBudgetOf(ctx: Ctx, work: string): { budget: (BudgetJson & { item: string; since: string | null }) | null; error: string | null } {
  let ref;
  try {
    ref = targetItem(ctx, work);
  } catch {
    return { budget: null, error: null };
  }
  let s;
  try {
    s = itemBudgetState(ctx.home(), readWorkFile(ref.file, ref.id).item, ctx.nowMs);
  } catch (err) {
    if (!(err instanceof HolonError)) throw err;
    return { budget: null, error: err.hint ? `${err.message} (fix: ${err.hint})` : err.message };
  }
  return { budget: { ...budgetJson(s.budget, s.source, s.spent, s.verdict), item: ref.id, since: s.since }, error: null };
}

const leftLine = (b: BudgetJson) =>
  Object.keys(b.limits).length
    ? Object.entries(b.limits).filter(([, v]) => v !== null).map(([k, v]) => `${k} ${(b.spent as Record<string, number>)[k]} of ${v} spent, ${b.left[k]} left`).join('; ')
    : `no limit; spent ${b.spent.tokens} tokens (+${b.spent.cache_read} cache reads, not counted), ${b.spent.runs} runs`;

/** How many bytes of the log `holon runs show` prints by default. */
const TAIL_BYTES = 4096;

/** `holon runs show RUN`: one run record (id or unique prefix) and the tail of its log. */
export function runShow(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  // `holon runs show RUN --json`: the parent `runs` owns --json too and commander gives it the flag.
  const json = opts.json || Boolean((ctx.globals as { json?: boolean }).json);
  const home = ctx.home();
  const r = findRun(home, args[0]);
  const bytes = TAIL_BYTES;
  const tail = readLogTail(home, r.id, bytes);
  const log = { file: runLogFile(home, r.id), size: tail?.size ?? 0, truncated: tail?.truncated ?? false, tail: tail?.text ?? null };
  if (json) return printJson({ run: r, log });
  out(`${r.id}  ${r.agent} on ${r.work_item} (${r.runner}, ${r.reasons.join('+')})`);
  out(`status ${status(r)}${r.exit_code !== null ? ` · exit ${r.exit_code}` : ''}${r.signal ? ` · ${r.signal}` : ''} · started ${r.started_at}${r.duration_ms !== null ? ` · took ${humanDuration(r.duration_ms)}` : ''}`);
  if (r.cause) out(`cause: ${r.cause}${r.status !== 'ok' ? (r.outside ? ' (outside the agent: a retry may succeed)' : " (the agent's own)") : ''}`);
  for (const p of r.problems ?? []) out(`problem: ${p}`);
  for (const w of r.wakes) out(`wake: ${w.reason}${w.wait ? ` wait ${w.wait}` : ''}${w.event ? ` event ${w.event}` : ''}${w.timer ? ` timer ${w.timer}` : ''}`);
  if (r.session_id) out(`session: ${r.session_id}${r.resumed_session ? ' (resumed)' : ''}`);
  if (r.tokens) out(`${fmtTokens(r.tokens)}${r.cost_usd !== null ? `, ${cost(r.cost_usd)}` : ''}`);
  out(`progress: ${r.progress === null ? '-' : r.progress ? 'yes' : 'no'}${r.blocked ? ' · blocked the item' : ''}${r.resumed_by ? ` · resumed by ${r.resumed_by}` : ''}`);
  out(dim(`log: ${relPath(ctx.cwd, log.file)}${tail ? ` (${tail.size} bytes${tail.truncated ? `, last ${bytes} shown` : ''})` : ' (none)'}`));
  if (tail?.text) out(tail.text.replace(/\s+$/, ''));
}
