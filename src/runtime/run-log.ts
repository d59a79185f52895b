import type { RunRecord } from '../core/run-record.js';
import type { RetryPlan } from '../core/run-retry.js';
import type { WatchSettings } from '../core/watch-settings.js';
import { iso } from '../core/time.js';

/**
 * The watch log line for a run's end: status, exit, cause (and whether it is outside the agent), then
 * what happens next: the retry and when, or the block and how to lift it.
 */
export function endedLine(run: RunRecord, plan: RetryPlan | null, s: WatchSettings): string {
  let line = `run ${run.id} ended: ${run.status}${run.exit_code !== null ? ` (exit ${run.exit_code})` : ''}`;
  if (run.cause) line += ` - ${run.cause}${run.status !== 'ok' ? (run.outside ? ' [outside the agent]' : ' [the agent]') : ''}`;
  if (run.progress === false && run.status === 'ok') line += ', no progress';
  if (run.status === 'error' || run.status === 'timeout') {
    if (run.blocked) line += `; ${run.work_item} blocked after ${s.retry.limit + 1} failed runs (fix the cause, then holon reopen ${run.work_item})`;
    else if (plan && plan.failures > 0) line += `; retry ${plan.failures} of ${s.retry.limit} at ${iso(plan.dueMs)}`;
  } else if (run.blocked) {
    line += `; ${run.work_item} blocked after ${s.noProgressLimit} runs without progress`;
  }
  return line;
}
