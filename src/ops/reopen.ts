import { iso } from '../core/time.js';
import { reopen } from '../core/transitions.js';
import type { Home } from '../store/home.js';
import { mutateWork, type MutateResult, type WorkRef } from '../store/work-store.js';

/** Reopens a blocked or deferred item (`holon reopen`, the dashboard): clears its blocker and resume_when. */
export function reopenItem(o: { home: Home; ref: WorkRef; nowMs: number; reason?: string }): Promise<MutateResult> {
  return mutateWork(o.home, o.ref, o.nowMs, (d) => reopen(d, iso(o.nowMs), o.reason ?? ''));
}
