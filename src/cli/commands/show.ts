import { show, type ShowBudgets } from '../../ops/show.js';
import { budgetJson, describeBudget, describeSpending, formatBudget } from '../../core/budget.js';
import { workItemJson } from '../../core/workitem.js';
import { fmtTokens } from '../../core/run-record.js';
import type { Ctx } from '../context.js';
import { bold, dim, out, printJson } from '../output.js';
import { relPath } from '../render.js';
import { targetItem } from '../work-args.js';

/** show --json: `budget` (the item's, spent and left) and `daily_budget` (its agent's day, or null). */
function budgetsJson(b: ShowBudgets) {
  const i = b.item;
  const d = b.daily;
  return {
    budget: i ? { ...budgetJson(i.budget, i.source, i.spent, i.verdict), since: i.since } : null,
    daily_budget: d ? { ...budgetJson(d.budget, d.source, d.spent, d.verdict), day: d.day, timezone: d.timezone, resets_at: d.resets_at } : null,
    ...(b.error ? { budget_error: b.error } : {}),
  };
}

function budgetLines(b: ShowBudgets): string[] {
  const out: string[] = [];
  if (b.error) out.push(`budget: ${b.error}`);
  const i = b.item;
  if (i && (i.verdict.state !== 'none' || i.spent.runs)) out.push(`${describeBudget('budget', i.verdict)}${i.verdict.state === 'none' ? '' : ` (${formatBudget(i.budget)})`}; spent ${describeSpending(i.spent)}${i.since ? ` since ${i.since}` : ''}`);
  const d = b.daily;
  if (d) out.push(`${describeBudget(`daily budget of ${view(d)}`, d.verdict)}; resets at ${d.resets_at}`);
  return out;
}

const view = (d: NonNullable<ShowBudgets['daily']>) => `${d.day} (${d.timezone})`;

/** Reads one item; never changes it (reading is not acting). */
export function run(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  const ref = targetItem(ctx, args[0]);
  const { doc, item: view, focus, totals, budgets } = show(ctx, ref);
  if (opts.json) return printJson({ ...workItemJson(view), focus, file: ref.file, runs: totals.runs, tokens: totals.tokens, cost_usd: totals.cost_usd, ...budgetsJson(budgets) });
  const i = view;
  out(`${bold(i.id)}  ${i.title}`);
  out(dim(`status ${i.status} · class ${i.class}${i.action ? ` · action ${i.action}` : ''}${i.role ? ` · role ${i.role}` : ''} · priority ${i.priority ?? '-'} · agent ${i.agent} · revision ${i.revision}${focus ? ' · focus' : ''}`));
  const guards = [i.workspace?.require_worktree != null && `require_worktree ${i.workspace.require_worktree}`, i.freshness?.max_age && `evidence max_age ${i.freshness.max_age}`, i.exclude.length && `exclude ${i.exclude.join(', ')}`].filter(Boolean);
  if (guards.length) out(`guards: ${guards.join(' · ')}`);
  if (i.depends_on.length) out(`depends on: ${i.depends_on.join(', ')}`);
  for (const w of i.waits) {
    const why = w.settled_by && w.settled_reason === 'event' ? `by ${w.settled_by.source} event ${w.settled_by.event}` : w.settled_reason;
    out(`wait ${w.id}: ${w.kind}${w.kind === 'operator' ? '' : ':' + w.resource} ${w.status}${why ? ` (${why})` : ''} — ${w.reason}${w.recheck_at && w.status === 'active' ? `; recheck at ${w.recheck_at}` : ''}`);
  }
  if (i.blocker) out(`blocker: ${i.blocker.reason} — recovery: ${i.blocker.recovery}`);
  if (i.claim) out(`claim: ${i.claim.holder}${i.claim.expires_at ? ` until ${i.claim.expires_at}` : ''}`);
  if (totals.runs) out(`runs: ${totals.runs}${totals.tokens ? `, ${fmtTokens(totals.tokens)}` : ''}${totals.cost_usd !== null ? `, $${totals.cost_usd.toFixed(4)}` : ''} (holon runs --work ${i.id})`);
  for (const line of budgetLines(budgets)) out(line);
  out(dim(relPath(ctx.cwd, ref.file)));
  out(doc.body.replace(/^\n+/, '\n').replace(/\s+$/, ''));
}
