import type { Home } from '../store/home.js';

/** Why the runtime should resume an agent on an item. */
export type WakeReason = 'wait_triggered' | 'recheck_deadline' | 'operator_message' | 'timer_fired' | 'new_work' | 'interrupted';

export interface Wake {
  agent: string;
  work_item: string | null;
  reason: WakeReason;
  wait?: string;
  event?: string;
  timer?: string;
}

/** What one pass did. Field names are part of the `holon tick --json` interface. */
export interface TickReport {
  now: string;
  timers_fired: Array<{ timer: string; agent: string; work_item: string | null; fire_count: number; missed_count: number }>;
  rechecks_expired: Array<{ agent: string; work_item: string; wait: string }>;
  events_admitted: Array<{ event: string; agent: string; triggered: Array<{ work_item: string; wait: string }>; nudged: boolean }>;
  tasks_finished: Array<{ task: string; agent: string; exit_code: number | null }>;
  wakes: Wake[];
}

/**
 * One pass of the runtime: due timers, expired rechecks, queued events, finished tasks.
 * Shared by `holon tick` and `holon watch`. (Filled in by the waits/timers work.)
 */
export async function tick(home: Home, nowMs: number, opts: { agents?: string[] } = {}): Promise<TickReport> {
  void home;
  void opts;
  return { now: new Date(nowMs).toISOString(), timers_fired: [], rechecks_expired: [], events_admitted: [], tasks_finished: [], wakes: [] };
}

/** The next moment something becomes due (a timer, a recheck), or null: watch sleeps until then. */
export function nextDueMs(home: Home, opts: { agents?: string[] } = {}): number | null {
  void home;
  void opts;
  return null;
}
