import { iso } from '../core/time.js';
import { earliest } from '../core/schedule.js';
import { hasQueued } from '../store/event-store.js';
import { listAgents, type Home } from '../store/home.js';
import { listTimers } from '../store/timers.js';
import { loadAgentWork } from '../store/work-index.js';
import { admitQueued, wakesOf } from './admission.js';
import { expireRechecks } from './rechecks.js';
import { repairDoneItems } from './repair.js';
import { reportFinishedTasks, reportTasksOfEvents } from './tasks.js';
import { reportInterruptedCommands } from './threads.js';
import { listThreads } from '../store/threads.js';
import { fireDueTimers, settleCancelledTimerWaits } from './timers.js';

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
  timers_fired: Array<{ timer: string; agent: string; work_item: string | null; fire_count: number; missed_count: number; due_at?: string; late_ms?: number; event?: string }>;
  rechecks_expired: Array<{ agent: string; work_item: string; wait: string }>;
  events_admitted: Array<{ event: string; agent: string; triggered: Array<{ work_item: string; wait: string }>; joined: Array<{ work_item: string; wait: string }>; nudged: boolean; source?: string; resource?: string }>;
  tasks_finished: Array<{ task: string; agent: string; exit_code: number | null }>;
  thread_commands_interrupted: Array<{ thread: string; command: string; agent: string }>;
  wakes: Wake[];
}

/**
 * One pass of the runtime, in this order: finished tasks (their result events are queued), thread
 * commands whose supervisor died (interrupted, their events queued), due
 * timers (fired once each, their events queued), queued events (admitted: they trigger waits), then
 * expired rechecks (a wait whose event arrived in this same pass is triggered, not expired).
 * Shared by `holon tick` and `holon watch`; every step is locked and safe to rerun after a crash.
 */
export async function tick(home: Home, nowMs: number, opts: { agents?: string[]; admitLimit?: number } = {}): Promise<TickReport> {
  const agents = opts.agents ?? listAgents(home);
  const tasks_finished: TickReport['tasks_finished'] = await reportFinishedTasks(home, nowMs, agents);
  const thread_commands_interrupted = await reportInterruptedCommands(home, listThreads(home, agents), nowMs);
  // Before timers: a done item's timer left by a killed `complete` is cancelled, not fired.
  await repairDoneItems(home, agents, nowMs);
  const timers_fired = await fireDueTimers(home, agents, nowMs);
  await settleCancelledTimerWaits(home, agents, nowMs);
  const admitted = await admitQueued(home, agents, nowMs, opts.admitLimit);
  tasks_finished.push(...(await reportTasksOfEvents(home, admitted, nowMs, tasks_finished)));
  const rechecks_expired = await expireRechecks(home, agents, nowMs);
  const wakes: Wake[] = [];
  for (const f of timers_fired) wakes.push({ agent: f.agent, work_item: f.work_item, reason: 'timer_fired', timer: f.timer, event: f.event });
  for (const ev of admitted) wakes.push(...wakesOf(ev));
  for (const r of rechecks_expired) wakes.push({ agent: r.agent, work_item: r.work_item, reason: 'recheck_deadline', wait: r.wait });
  // A done item is never resumed (e.g. the fire of a timer whose cancel on completion was cut short).
  const done = new Set<string>();
  if (wakes.length) for (const a of agents) for (const i of loadAgentWork(home, a).items) if (i.status === 'done') done.add(i.id);
  return {
    now: iso(nowMs),
    timers_fired,
    rechecks_expired,
    events_admitted: admitted.map((e) => ({ event: e.id, agent: e.agent, triggered: e.disposition?.triggered ?? [], joined: e.disposition?.joined ?? [], nudged: e.disposition?.nudged ?? true, source: e.source, resource: e.resource })),
    tasks_finished,
    thread_commands_interrupted,
    wakes: wakes.filter((w) => !w.work_item || !done.has(w.work_item)),
  };
}

/**
 * The next moment something becomes due (a timer, a recheck), or null: watch sleeps until then.
 * Queued events are due at once (0).
 */
export function nextDueMs(home: Home, opts: { agents?: string[]; leasesAfterMs?: number } = {}): number | null {
  const agents = opts.agents ?? listAgents(home);
  const times: Array<string | null> = [];
  for (const agent of agents) {
    if (hasQueued(home, agent)) return 0;
    for (const t of listTimers(home, agent).timers) if (t.status === 'active') times.push(t.next_due_at);
    for (const item of loadAgentWork(home, agent).items) {
      if (item.status === 'done') continue;
      for (const w of item.waits) if (w.status === 'active') times.push(w.recheck_at);
      // The watcher also wakes when a lease ends: the item may become new work for another agent.
      const end = item.claim?.expires_at;
      if (opts.leasesAfterMs !== undefined && item.status === 'open' && end && Date.parse(end) > opts.leasesAfterMs) times.push(end);
    }
  }
  return earliest(times);
}
