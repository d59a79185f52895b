import { iso } from './time.js';

/** Timer statuses: `fired` is final for a one-shot (or a repeat past `until`). */
export const TIMER_STATUSES = ['active', 'fired', 'cancelled'] as const;
export type TimerStatus = (typeof TIMER_STATUSES)[number];

/** One timer, one file: agents/A/timers/ID.yaml. Field names are the `holon timer --json` interface. */
export interface Timer {
  id: string;
  agent: string;
  work_item: string | null;
  summary: string | null;
  status: TimerStatus;
  created_at: string;
  /** The first due time; a repeating timer's slots are first_due_at + k * every. */
  first_due_at: string;
  every: string | null;
  until: string | null;
  next_due_at: string | null;
  last_fired_at: string | null;
  /** The due slot the last fire covered (the latest slot collapsed into it). */
  last_slot_at: string | null;
  fire_count: number;
  missed_count: number;
  cancelled_at: string | null;
  revision: number;
}

export const TIMER_KEYS = [
  'id', 'agent', 'work_item', 'summary', 'status', 'created_at', 'first_due_at', 'every', 'until', 'next_due_at',
  'last_fired_at', 'last_slot_at', 'fire_count', 'missed_count', 'cancelled_at', 'revision',
] as const;

/** Rounds up to the whole second: timestamps are stored to the second, and rounding down would fire early. */
export function ceilSecond(ms: number): number {
  return Math.ceil(ms / 1000) * 1000;
}

/** The first slot of the grid `firstMs + k * everyMs` at or after `nowMs` (`firstMs` itself for a one-shot). */
export function nextSlot(firstMs: number, everyMs: number | null, nowMs: number): number {
  if (!everyMs || firstMs >= nowMs) return firstMs;
  return firstMs + Math.ceil((nowMs - firstMs) / everyMs) * everyMs;
}

/** What firing a due timer now does: the slot it fires for, the slots it collapses, the next due time. */
export interface Fire {
  /** The first due slot this fire covers (stable for a given timer state: it names the fire). */
  slot_at: string;
  /** The latest due slot covered. */
  last_slot_at: string;
  missed_count: number;
  late_ms: number;
  next: Timer;
}

/**
 * Pure: the fire of `t` at `nowMs`, or null when nothing is due. Never early: a slot fires only once
 * `nowMs` has reached it. Slots missed while nothing ran collapse into this one fire; the schedule
 * stays on its grid (first_due_at + k * every), it does not drift to the late fire time.
 */
export function dueFire(t: Timer, nowMs: number, everyMs: number | null, untilMs: number | null): Fire | null {
  if (t.status !== 'active' || !t.next_due_at) return null;
  const due = Date.parse(t.next_due_at);
  if (nowMs < due) return null;
  let covered = 1;
  if (everyMs) {
    covered = Math.floor((nowMs - due) / everyMs) + 1;
    if (untilMs != null) covered = Math.max(1, Math.min(covered, Math.floor((untilMs - due) / everyMs) + 1));
  }
  const lastSlot = due + (covered - 1) * (everyMs ?? 0);
  const nextDue = everyMs ? due + covered * everyMs : null;
  const finished = nextDue == null || (untilMs != null && nextDue > untilMs);
  const next: Timer = {
    ...t,
    status: finished ? 'fired' : 'active',
    // Rounded up: `iso` keeps whole seconds, and a slot between two seconds must not be stored early.
    next_due_at: finished ? null : iso(ceilSecond(nextDue!)),
    last_fired_at: iso(nowMs),
    last_slot_at: iso(lastSlot),
    fire_count: t.fire_count + 1,
    missed_count: t.missed_count + covered - 1,
  };
  return { slot_at: t.next_due_at, last_slot_at: iso(lastSlot), missed_count: covered - 1, late_ms: nowMs - lastSlot, next };
}

/** The earliest of some ISO times (nulls ignored), as epoch ms, or null. */
export function earliest(times: Array<string | null | undefined>): number | null {
  let best: number | null = null;
  for (const t of times) {
    if (!t) continue;
    const ms = Date.parse(t);
    if (!Number.isNaN(ms) && (best == null || ms < best)) best = ms;
  }
  return best;
}
