import { viewOf, type WorkDoc, type WorkView } from '../core/workitem.js';
import { sumRuns } from '../core/run-record.js';
import { readFocus } from '../store/focus.js';
import { listRuns } from '../store/runs.js';
import { readWorkFile, type WorkRef } from '../store/work-store.js';
import type { OpsCtx } from './context.js';
import { budgetsConfigured, dailyBudgetState, itemBudgetState, type DailyBudgetState, type ItemBudgetState } from '../store/budget.js';

/** Reads one item; never changes it (reading is not acting). */
export interface ShowBudgets {
  /** The item's budget and spending (state none without a limit); null with the error when its budget is malformed. */
  item: ItemBudgetState | null;
  /** Its agent's daily budget, when one is set. */
  daily: DailyBudgetState | null;
  error: string | null;
}

/** The item's budget and its agent's day, as `show` prints them (a malformed budget is reported, not thrown). */
export function showBudgets(ctx: OpsCtx, doc: WorkDoc): ShowBudgets {
  const home = ctx.home();
  try {
    const daily = doc.item.agent && budgetsConfigured(home, doc.item.agent).daily ? dailyBudgetState(home, doc.item.agent, ctx.nowMs) : null;
    return { item: itemBudgetState(home, doc.item, ctx.nowMs), daily, error: null };
  } catch (err) {
    return { item: null, daily: null, error: (err as Error).message };
  }
}

export function show(ctx: OpsCtx, ref: WorkRef): { doc: WorkDoc; item: WorkView; focus: boolean; file: string; totals: ReturnType<typeof sumRuns>; budgets: ShowBudgets } {
  const doc = readWorkFile(ref.file, ref.id);
  const focus = readFocus(ctx.home(), ref.agent).work_item === ref.id;
  // What the watcher's runs on this item used, summed (this machine's run records).
  const totals = sumRuns(listRuns(ctx.home(), { work: ref.id }).filter((r) => r.work_item === ref.id));
  return { doc, item: viewOf(doc), focus, file: ref.file, totals, budgets: showBudgets(ctx, doc) };
}
