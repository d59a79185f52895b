import { budgetBlocker, describeFigures, fmtFigure, type BudgetVerdict } from '../core/budget.js';
import type { WorkItem } from '../core/types.js';
import { iso } from '../core/time.js';
import { appendHistory } from '../core/workitem.js';
import { budgetsConfigured, dailyBudgetState, itemBudgetState, type DailyBudgetState } from '../store/budget.js';
import type { Home } from '../store/home.js';
import { mutateWork, type WorkRef } from '../store/work-store.js';

/**
 * The watcher's budget check before a run (docs/budgets.md): an agent whose day is spent is held until
 * the next day; an item whose budget is spent is blocked with `budget_exhausted`; past the warning
 * share the run starts with a note on what is left. A run in flight is never stopped by a budget.
 */

/** The agent's daily budget when it is spent (the agent's runs wait for `resetsMs`), else null. */
export function dailyExhausted(home: Home, agent: string, nowMs: number): DailyBudgetState | null {
  if (!budgetsConfigured(home, agent).daily) return null;
  const d = dailyBudgetState(home, agent, nowMs);
  return d.verdict.state === 'exhausted' ? d : null;
}

export type ItemGate = { refuse: false; note: string | null } | { refuse: true; reason: string };

/** What is left, for the resume prompt (only past the warning share). */
function leftNote(what: string, v: BudgetVerdict): string | null {
  if (v.state !== 'warn') return null;
  const left = v.figures.filter((f) => f.state !== 'ok').map((f) => `${fmtFigure(f.figure, f.left)} of ${fmtFigure(f.figure, f.limit)}`).join(', ');
  return `${what} is nearly spent: ${left} left (${describeFigures(v)}). Wrap up, hand over or ask for more; the watcher starts no run once it is spent.`;
}

/** Whether the item's budget (and its agent's day) allows one more run, and the note for its prompt. */
export function itemGate(home: Home, agent: string, item: WorkItem, nowMs: number): ItemGate {
  const notes: string[] = [];
  const conf = budgetsConfigured(home, agent);
  if (conf.item || item.extra.budget != null) {
    const s = itemBudgetState(home, item, nowMs);
    if (s.verdict.state === 'exhausted') return { refuse: true, reason: describeFigures(s.verdict, 'worst') };
    const n = leftNote(`This item's budget`, s.verdict);
    if (n) notes.push(n);
  }
  if (conf.daily) {
    const d = dailyBudgetState(home, agent, nowMs);
    const n = leftNote(`Agent ${agent}'s budget for ${d.day} (${d.timezone})`, d.verdict);
    if (n) notes.push(n);
  }
  return { refuse: false, note: notes.length ? notes.join('\n') : null };
}

/** Blocks an open item whose budget is spent (the recovery names `holon edit --budget` and `holon reopen`). */
export async function blockForBudget(home: Home, ref: WorkRef, nowMs: number): Promise<boolean> {
  let blocked = false;
  await mutateWork(home, ref, nowMs, (doc) => {
    if (doc.item.status !== 'open') return doc;
    const s = itemBudgetState(home, doc.item, nowMs);
    if (s.verdict.state !== 'exhausted') return doc;
    blocked = true;
    const blocker = budgetBlocker(doc.item.id, s.verdict, nowMs);
    const next = appendHistory(doc, { at: iso(nowMs), text: `watcher refused a run: ${blocker.reason}; item blocked` });
    return { ...next, item: { ...next.item, status: 'blocked', blocker } };
  });
  return blocked;
}
