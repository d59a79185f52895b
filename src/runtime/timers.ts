import { invalid } from '../core/errors.js';
import { dueFire, type Timer } from '../core/schedule.js';
import { parseDuration, iso } from '../core/time.js';
import { timerCancelled } from '../core/transitions.js';
import { waitKey } from '../core/wait-matching.js';
import { enqueueEvent } from '../store/events.js';
import { eventExists, occurrenceEventId } from '../store/event-store.js';
import { listAgents, type Home } from '../store/home.js';
import { listTimers, mutateTimer } from '../store/timers.js';
import { loadAgentWork } from '../store/work-index.js';
import { mutateWork, workFile } from '../store/work-store.js';
import { crashPoint } from './crash-point.js';
import { skipBusy } from './skip-busy.js';

export interface TimerFire {
  timer: string;
  agent: string;
  work_item: string | null;
  fire_count: number;
  missed_count: number;
  due_at: string;
  late_ms: number;
  event: string;
}

/** The event id of one fire: fixed by the timer and its first covered slot, so a rerun finds it. */
export const fireEventId = (timerId: string, slotAt: string) => occurrenceEventId(`timer:${timerId}:${slotAt}`);

const everyMs = (t: Timer) => (t.every ? parseDuration(t.every, 'every') : null);
const untilMs = (t: Timer) => (t.until ? Date.parse(t.until) : null);

/**
 * Fires one timer if it is due, under its lock, re-reading it first (two ticks never fire a slot
 * twice). The fire's event is queued (deterministic id) before the timer's new state is written: a
 * tick killed between the two reruns the same slot, finds the event, and only writes the state.
 */
export async function fireTimer(home: Home, agent: string, id: string, nowMs: number): Promise<TimerFire | null> {
  return mutateTimer(home, agent, id, (t) => {
    const f = dueFire(t, nowMs, everyMs(t), untilMs(t));
    if (!f) return { next: null, result: null };
    const event = fireEventId(t.id, f.slot_at);
    if (!eventExists(home, agent, event)) {
      enqueueEvent(home, agent, { id: event, source: 'timer', mode: 'wake_hint', resource: `timer:${t.id}`, work_item: null, payload: null, provenance: `timer:${t.id}` }, nowMs);
    }
    crashPoint('timer-event');
    const result: TimerFire = { timer: t.id, agent, work_item: t.work_item, fire_count: f.next.fire_count, missed_count: f.missed_count, due_at: f.last_slot_at, late_ms: f.late_ms, event };
    return { next: f.next, result };
  });
}

/** The tick's timer phase: every due timer of the agents. */
export async function fireDueTimers(home: Home, agents: string[], nowMs: number): Promise<TimerFire[]> {
  const out: TimerFire[] = [];
  for (const agent of agents) {
    for (const t of listTimers(home, agent).timers) {
      if (t.status !== 'active' || !t.next_due_at || Date.parse(t.next_due_at) > nowMs) continue;
      const f = await skipBusy(() => fireTimer(home, agent, t.id, nowMs));
      if (f) out.push(f);
    }
  }
  return out;
}

export interface CancelResult {
  timer: Timer;
  /** cancelled now, or the state it was already in (idempotent). */
  outcome: 'cancelled' | 'already_cancelled' | 'already_fired';
  settled: Array<{ work_item: string; wait: string }>;
}

/**
 * Cancels a timer (idempotent). Waits on it settle with `timer_cancelled` and their items are
 * blocked until someone acts. A one-shot that already fired is left as it is: its fire counts.
 */
export async function cancelTimer(home: Home, agent: string, id: string, nowMs: number, opts: { lockRetries?: number } = {}): Promise<CancelResult> {
  const { timer, outcome } = await mutateTimer<Pick<CancelResult, 'timer' | 'outcome'>>(home, agent, id, (t) => {
    if (t.status === 'cancelled') return { next: null, result: { timer: t, outcome: 'already_cancelled' as const } };
    if (t.status === 'fired') return { next: null, result: { timer: t, outcome: 'already_fired' as const } };
    const next: Timer = { ...t, status: 'cancelled', cancelled_at: iso(nowMs), next_due_at: null };
    return { next, result: { timer: { ...next, revision: t.revision + 1 }, outcome: 'cancelled' as const } };
  }, opts);
  const settled: CancelResult['settled'] = [];
  if (outcome === 'already_fired') return { timer, outcome, settled };
  crashPoint('timer-cancel');
  // Also on a repeated cancel: settles waits a crash may have left between the two steps.
  const key = `timer:${id}`;
  for (const a of listAgents(home)) {
    for (const item of loadAgentWork(home, a).items) {
      if (!item.waits.some((w) => w.status === 'active' && waitKey(w) === key)) continue;
      let got: string[] = [];
      await mutateWork(home, { agent: a, id: item.id, file: workFile(home, a, item.id) }, nowMs, (d) => {
        const r = timerCancelled(d, id, iso(nowMs));
        got = r.settled;
        return r.doc;
      });
      settled.push(...got.map((wait) => ({ work_item: item.id, wait })));
    }
  }
  return { timer, outcome, settled };
}

/** Checks `--every` / `--until` against the first due time (refuses with exit 3). */
export function checkSchedule(firstDueMs: number, every: string | undefined, until: string | undefined, untilMsValue: number | null): void {
  if (every) {
    const ms = parseDuration(every, '--every');
    if (ms < 1000) throw invalid(`--every ${every} is shorter than a second`, 'timers work to the second: use --every 1s or more');
    // Due times are stored to the second: a slot between two seconds would be written rounded down, i.e. early.
    if (ms % 1000) throw invalid(`--every ${every} is not a whole number of seconds`, 'timers work to the second: e.g. --every 2s, 90s or 1h');
  } else if (until) throw invalid('--until needs --every', 'a one-shot timer fires once; --until ends a repeating one');
  if (untilMsValue != null && untilMsValue < firstDueMs) throw invalid('--until is before the first due time', 'pick an --until after --in/--at');
}

/**
 * Cancels the active timers created for an item (its `work_item`): `cancelled` ids, and `busy` ones
 * whose lock was held (the item is done already; the caller names them rather than waiting ~30 s).
 * A timer another item still waits on is kept: cancelling it would block that item for nothing.
 */
export async function cancelItemTimers(home: Home, agent: string, workItem: string, nowMs: number): Promise<{ cancelled: string[]; busy: string[] }> {
  const out: string[] = [];
  const busy: string[] = [];
  const timers = listTimers(home, agent).timers.filter((t) => t.status === 'active' && t.work_item === workItem);
  if (!timers.length) return { cancelled: out, busy };
  const waitedOn = new Set<string>();
  for (const item of loadAgentWork(home, agent).items) {
    if (item.id === workItem || item.status === 'done') continue;
    for (const w of item.waits) if (w.status === 'active' && w.kind === 'timer') waitedOn.add(w.resource);
  }
  for (const t of timers) {
    if (waitedOn.has(t.id)) continue;
    const r = await skipBusy(() => cancelTimer(home, agent, t.id, nowMs, { lockRetries: 10 }));
    if (!r) busy.push(t.id);
    else if (r.outcome === 'cancelled') out.push(t.id);
  }
  return { cancelled: out, busy };
}

/**
 * Repairs a cancel cut short between its two steps (timer written, waits not yet settled): active
 * waits on a cancelled timer are settled as `holon timer cancel` would have. Part of every tick.
 */
export async function settleCancelledTimerWaits(home: Home, agents: string[], nowMs: number): Promise<Array<{ work_item: string; wait: string }>> {
  const cancelled = new Map<string, string>();
  for (const a of agents) for (const t of listTimers(home, a).timers) if (t.status === 'cancelled') cancelled.set(t.id, a);
  if (!cancelled.size) return [];
  const pending = new Set<string>();
  for (const a of listAgents(home)) {
    for (const item of loadAgentWork(home, a).items) {
      for (const w of item.waits) if (w.status === 'active' && w.kind === 'timer' && cancelled.has(w.resource)) pending.add(w.resource);
    }
  }
  const out: Array<{ work_item: string; wait: string }> = [];
  for (const id of pending) {
    const r = await skipBusy(() => cancelTimer(home, cancelled.get(id)!, id, nowMs));
    if (r) out.push(...r.settled);
  }
  return out;
}
