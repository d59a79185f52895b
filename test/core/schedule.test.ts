import { describe, expect, it } from 'vitest';
import { ceilSecond, dueFire, earliest, nextSlot, type Timer } from '../../src/core/schedule.js';

const T0 = Date.parse('2026-11-30T10:00:00Z');
const timer = (over: Partial<Timer> = {}): Timer => ({
  id: 't-1', agent: 'a', work_item: null, summary: null, status: 'active', created_at: '2026-11-30T09:00:00Z',
  first_due_at: '2026-11-30T10:00:00Z', every: null, until: null, next_due_at: '2026-11-30T10:00:00Z',
  last_fired_at: null, last_slot_at: null, fire_count: 0, missed_count: 0, cancelled_at: null, revision: 1, ...over,
});

describe('dueFire', () => {
  it('never fires early, not even by a millisecond', () => {
    expect(dueFire(timer(), T0 - 1, null, null)).toBeNull();
    const f = dueFire(timer(), T0, null, null)!;
    expect(f.late_ms).toBe(0);
    expect(f.next).toMatchObject({ status: 'fired', next_due_at: null, fire_count: 1, missed_count: 0, last_fired_at: '2026-11-30T10:00:00Z' });
  });

  it('fires a one-shot once: the fired state is not due again', () => {
    const f = dueFire(timer(), T0 + 5000, null, null)!;
    expect(f.late_ms).toBe(5000);
    expect(dueFire(f.next, T0 + 10 * 3600_000, null, null)).toBeNull();
  });

  it('collapses missed repeats into one fire and stays on the grid', () => {
    const t = timer({ every: '1h' });
    // 3.5 hours late: slots 10:00, 11:00, 12:00, 13:00 are due -> one fire, 3 missed, next 14:00 (not 14:30).
    const f = dueFire(t, T0 + 3.5 * 3600_000, 3600_000, null)!;
    expect(f.missed_count).toBe(3);
    expect(f.slot_at).toBe('2026-11-30T10:00:00Z');
    expect(f.last_slot_at).toBe('2026-11-30T13:00:00Z');
    expect(f.late_ms).toBe(30 * 60_000);
    expect(f.next).toMatchObject({ status: 'active', next_due_at: '2026-11-30T14:00:00Z', fire_count: 1, missed_count: 3 });
    expect(dueFire(f.next, T0 + 3.9 * 3600_000, 3600_000, null)).toBeNull();
  });

  it('stops a repeat at --until, and counts only slots before it', () => {
    const until = T0 + 2 * 3600_000;
    const f = dueFire(timer({ every: '1h', until: '2026-11-30T12:00:00Z' }), T0 + 10 * 3600_000, 3600_000, until)!;
    expect(f.missed_count).toBe(2);
    expect(f.next).toMatchObject({ status: 'fired', next_due_at: null });
  });

  it('ignores cancelled timers', () => {
    expect(dueFire(timer({ status: 'cancelled' }), T0 + 1000, null, null)).toBeNull();
  });
});

describe('helpers', () => {
  it('ceilSecond rounds up so a stored time is never before the requested one', () => {
    expect(ceilSecond(T0 + 1)).toBe(T0 + 1000);
    expect(ceilSecond(T0)).toBe(T0);
  });
  it('earliest skips nulls', () => {
    expect(earliest([null, '2026-11-30T11:00:00Z', '2026-11-30T10:00:00Z', undefined])).toBe(T0);
    expect(earliest([null])).toBeNull();
  });
});

describe('nextSlot', () => {
  it('is the first grid slot at or after now; a one-shot or a future first slot is itself', () => {
    const H = 3600_000;
    expect(nextSlot(0, H, 4.5 * H)).toBe(5 * H);
    expect(nextSlot(0, H, 4 * H)).toBe(4 * H);
    expect(nextSlot(0, null, 4.5 * H)).toBe(0);
    expect(nextSlot(2 * H, H, H)).toBe(2 * H);
  });
});

describe('a period that is not whole seconds (a hand-edited record)', () => {
  it('stores the next slot rounded up, never down: a stored time before the slot would fire early', () => {
    const f = dueFire(timer({ every: '1500ms' }), T0, 1500, null)!;
    expect(Date.parse(f.next.next_due_at!)).toBeGreaterThanOrEqual(T0 + 1500);
    expect(f.next.next_due_at).toBe('2026-11-30T10:00:02Z');
  });
});
