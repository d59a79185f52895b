import { viewOf, type WorkDoc, type WorkView } from '../core/workitem.js';
import { sumRuns } from '../core/run-record.js';
import { readFocus } from '../store/focus.js';
import { listRuns } from '../store/runs.js';
import { readWorkFile, type WorkRef } from '../store/work-store.js';
import type { OpsCtx } from './context.js';

/** Reads one item; never changes it (reading is not acting). */
export function show(ctx: OpsCtx, ref: WorkRef): { doc: WorkDoc; item: WorkView; focus: boolean; file: string; totals: ReturnType<typeof sumRuns> } {
  const doc = readWorkFile(ref.file, ref.id);
  const focus = readFocus(ctx.home(), ref.agent).work_item === ref.id;
  // What the watcher's runs on this item used, summed (this machine's run records).
  const totals = sumRuns(listRuns(ctx.home(), { work: ref.id }).filter((r) => r.work_item === ref.id));
  return { doc, item: viewOf(doc), focus, file: ref.file, totals };
}
