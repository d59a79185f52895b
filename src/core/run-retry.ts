import type { RunRecord } from './run-record.js';

/** holon.yaml `watch:` retry settings, parsed (core/watch-settings.ts). */
export interface RetrySettings {
  /** How many times a failed run is retried before its item is blocked (0: blocked at the first failure). */
  limit: number;
  /** The first delay; each further failure doubles it. */
  delayMs: number;
  /** The longest delay. */
  maxDelayMs: number;
}

/** The delay before the retry that follows the n-th failed run in a row (n >= 1). */
export function retryDelayMs(s: RetrySettings, failures: number): number {
  return Math.min(s.maxDelayMs, s.delayMs * 2 ** Math.max(0, Math.min(failures - 1, 40)));
}

export const failed = (r: Pick<RunRecord, 'status'>) => r.status === 'error' || r.status === 'timeout';

/** A wake that failed runs did not consume, to run again when due. */
export interface RetryPlan {
  /** Failed runs in a row since the last success or block (0 after a block: the item was reopened). */
  failures: number;
  /** The newest failed run. */
  last: RunRecord;
  /** The newest failed run blocked the item (it runs again once someone reopens it). */
  blocked: boolean;
  /** When the retry is due. */
  dueMs: number;
  /** Every reason and wake of the failed runs since the last success (none was consumed). */
  reasons: string[];
  wakes: RunRecord['wakes'];
}

/**
 * The retry owed for one item, from its run records (oldest first), or null: none failed since the
 * last run that ended ok, or a run is in flight. Interrupted runs are skipped (a restart resumes them).
 * Read from the records only, so a watcher that restarts finds the same retry, due at the same time.
 */
export function retryPlan(runsOldestFirst: RunRecord[], s: RetrySettings): RetryPlan | null {
  let last: RunRecord | null = null;
  let failures = 0;
  let counting = true;
  const reasons: string[] = [];
  const wakes: RunRecord['wakes'] = [];
  for (let i = runsOldestFirst.length - 1; i >= 0; i--) {
    const r = runsOldestFirst[i];
    if (r.status === 'running') return null;
    if (r.status === 'interrupted') continue;
    if (r.status === 'ok') break;
    if (!failed(r)) continue;
    last ??= r;
    if (r.blocked) counting = false;
    if (counting) failures++;
    for (const reason of r.reasons) if (!reasons.includes(reason)) reasons.unshift(reason);
    for (const w of r.wakes) {
      if (!wakes.some((x) => x.reason === w.reason && x.wait === w.wait && x.event === w.event && x.timer === w.timer)) wakes.unshift(w);
    }
  }
  if (!last) return null;
  return { failures, last, blocked: last.blocked, dueMs: failures === 0 ? endOf(last) : endOf(last) + retryDelayMs(s, failures), reasons, wakes };
}

/**
 * When a run ended, to the ms where the record has it (`started_ms` + `duration_ms`): `ended_at` has
 * whole seconds, and a delay counted from it would let a run that ended at .900 retry 900 ms early.
 */
function endOf(r: RunRecord): number {
  if (r.started_ms != null && r.duration_ms != null) return r.started_ms + r.duration_ms;
  return Date.parse(r.ended_at ?? r.started_at);
}

/** Whether the failure that made `failures` failed runs in a row is past the retry limit. */
export const retriesExhausted = (s: RetrySettings, failures: number) => failures > s.limit;
