import { invalid, usage } from '../core/errors.js';
import { ceilSecond, nextSlot, type Timer } from '../core/schedule.js';
import { iso, parseDuration, parseIso } from '../core/time.js';
import { createTimer, newTimerId } from '../store/timers.js';
import { checkSchedule } from '../runtime/timers.js';
import type { OpsCtx } from './context.js';

/** A timer as --json shows it. */
export function timerView(t: Timer) {
  return { ...t };
}

/** Creates a timer for `agent` from --in/--at/--every/--until; shared by `timer add` and `wait --for timer`. */
export async function createTimerFor(ctx: OpsCtx, agent: string, o: { in?: string; at?: string; every?: string; until?: string; work?: string | null; summary?: string }, notes: string[] = []): Promise<Timer> {
  if (Boolean(o.in) === Boolean(o.at)) throw usage('give exactly one of --in DURATION or --at ISO', 'e.g. --in 2h, or --at 2026-11-30T17:00:00Z');
  const firstMs = ceilSecond(o.in ? ctx.nowMs + parseDuration(o.in, '--in') : parseIso(o.at!, '--at'));
  const untilMs = o.until ? parseIso(o.until, '--until') : null;
  checkSchedule(firstMs, o.every, o.until, untilMs);
  const dueMs = nextSlot(firstMs, o.every ? parseDuration(o.every, '--every') : null, ctx.nowMs);
  if (dueMs !== firstMs) {
    // The slots before the timer existed were never missed: the series starts at its next slot on the grid.
    if (untilMs != null && dueMs > untilMs) throw invalid(`--until ${o.until} is past: this series has no slot left`, 'pick a later --until, or a later --at');
    notes.push(`note: --at ${o.at} is already past; the first fire is the next slot on its grid, ${iso(dueMs)}`);
  } else if (o.at && dueMs < ctx.nowMs) notes.push(`note: --at ${o.at} is already past; the timer fires on the next tick`);
  const t: Timer = {
    id: newTimerId(),
    agent,
    work_item: o.work ?? null,
    summary: o.summary?.trim() || null,
    status: 'active',
    created_at: iso(ctx.nowMs),
    first_due_at: iso(firstMs),
    every: o.every ?? null,
    until: untilMs == null ? null : iso(untilMs),
    next_due_at: iso(dueMs),
    last_fired_at: null,
    last_slot_at: null,
    fire_count: 0,
    missed_count: 0,
    cancelled_at: null,
    revision: 1,
  };
  await createTimer(ctx.home(), t);
  return t;
}
