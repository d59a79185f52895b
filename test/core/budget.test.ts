import { describe, expect, it } from 'vitest';
import {
  budgetVerdict, dayWindow, describeFigures, formatBudget, layerBudgets, parseBudget, parseWarnAt, sumSpending, timeSpentAt,
  type SpendEntry,
} from '../../src/core/budget.js';
import { HolonError } from '../../src/core/errors.js';

const t = (uncached_input: number, output: number, cache_read = 0, cache_write = 0) => ({ uncached_input, cache_read, cache_write, output, reasoning: 0 });
const run = (start: string, end: string | null, tokens: ReturnType<typeof t> | null, cost: number | null, isRun = true): SpendEntry => ({ started_at: start, ended_at: end, tokens, cost_usd: cost, run: isRun });

describe('parseBudget', () => {
  it('reads every figure with its units', () => {
    expect(parseBudget('tokens=2M,cost=5usd,runs=20,time=2h', '--budget')).toEqual({ tokens: 2_000_000, cost: 5, runs: 20, time: 7_200_000 });
    expect(parseBudget('tokens=1.5k, cost=$0.25, time=1h30m', '--budget')).toEqual({ tokens: 1500, cost: 0.25, time: 5_400_000 });
    expect(parseBudget({ tokens: '2M', cost_usd: 3, runs: null }, 'front matter')).toEqual({ tokens: 2_000_000, cost: 3, runs: null });
    expect(parseBudget('runs=none', '--budget')).toEqual({ runs: null });
  });

  it.each([
    ['tokens=abc', /tokens=abc is not a limit/],
    ['toks=2M', /unknown budget figure "toks"/],
    ['tokens', /"tokens" is not FIGURE=LIMIT/],
    ['tokens=1M,tokens=2M', /given twice/],
    ['runs=1.5', /runs=1.5 is not a limit/],
    ['time=2 hours', /time=2 hours is not a limit/],
    ['', /the budget is empty/],
  ])('refuses %j as a usage error (exit 2) from a flag', (text, re) => {
    let err: unknown;
    try {
      parseBudget(text, '--budget', true);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HolonError);
    expect((err as HolonError).kind).toBe('usage');
    expect((err as Error).message).toMatch(re);
    expect((err as Error).message).toContain('--budget');
  });

  it('refuses a bad file value as invalid (exit 3) naming where', () => {
    expect(() => parseBudget('tokens=x', 'agents/a/AGENTS.md policy.budget')).toThrow(/agents\/a\/AGENTS.md policy.budget: tokens=x/);
    expect(() => parseBudget(['tokens=1'], 'holon.yaml budget.item')).toThrow(HolonError);
  });

  it('writes back what it reads', () => {
    const b = parseBudget('tokens=2M,cost=5usd,runs=20,time=2h', 'x');
    expect(formatBudget(b)).toBe('tokens=2M,cost=5usd,runs=20,time=2h');
    expect(parseBudget(formatBudget(b), 'x')).toEqual(b);
    expect(formatBudget({ tokens: 14708, runs: null })).toBe('tokens=14708,runs=none');
  });
});

describe('layering', () => {
  it('takes each figure from the most specific layer that sets it; none lifts a default', () => {
    const r = layerBudgets([
      { source: 'item', budget: { tokens: 4_000_000, runs: null } },
      { source: 'agent', budget: { tokens: 1_000_000, cost: 5, runs: 10 } },
      { source: 'home', budget: { time: 3_600_000, cost: 20 } },
    ]);
    expect(r.budget).toEqual({ tokens: 4_000_000, runs: null, cost: 5, time: 3_600_000 });
    expect(r.source).toEqual({ tokens: 'item', runs: 'item', cost: 'agent', time: 'home' });
  });
});

describe('sumSpending', () => {
  const entries = [
    run('2026-12-01T10:00:00Z', '2026-12-01T10:01:00Z', t(100, 50, 9000, 20), 0.5),
    run('2026-12-01T11:00:00Z', '2026-12-01T11:00:30Z', t(10, 5, 1000), null),
    // A thread command of the item: tokens, cost and time, not a run.
    run('2026-12-01T12:00:00Z', '2026-12-01T12:00:10Z', t(1, 1), 0.25, false),
    // A run in flight counts its time up to now.
    run('2026-12-01T13:00:00Z', null, null, null),
  ];
  const now = Date.parse('2026-12-01T13:00:05Z');

  it('counts input + cache writes + output, shows cache reads apart, sums cost, runs and wall time', () => {
    expect(sumSpending(entries, now)).toEqual({ tokens: 170 + 15 + 2, cache_read: 10_000, cost: 0.75, runs: 3, time: 60_000 + 30_000 + 10_000 + 5_000, uncosted: 1, open: 1 });
  });

  it('counts only what started since a reopen', () => {
    expect(sumSpending(entries, now, Date.parse('2026-12-01T11:30:00Z'))).toMatchObject({ tokens: 2, runs: 1, cost: 0.25 });
  });

  it('after a reopen, does not count again the run that ended in the same (whole) second as the reopen', () => {
    const since = Date.parse('2026-12-01T10:00:05Z');
    const spent = run('2026-12-01T10:00:05Z', '2026-12-01T10:00:05Z', t(10, 0), 0.1);
    const later = run('2026-12-01T10:00:05Z', '2026-12-01T10:00:09Z', t(20, 0), 0.2);
    expect(sumSpending([spent, later], now, since, true)).toMatchObject({ runs: 1, tokens: 20 });
    expect(sumSpending([spent, run('2026-12-01T10:00:05Z', null, null, null)], now, since, true).runs).toBe(1);
    // The day's window has no such rule: a run at its first second is the day's.
    expect(sumSpending([spent], now, since).runs).toBe(1);
  });

  it('after a reopen written to the ms, tells a run from the one before it by the run\'s exact start, in the same second', () => {
    const since = { ms: Date.parse('2026-12-01T10:00:05.500Z'), exact: true };
    const at = (iso: string, ms: string) => ({ ...run(iso, iso, t(10, 0), 0.1), started_ms: Date.parse(ms) });
    const before = at('2026-12-01T10:00:05Z', '2026-12-01T10:00:05.200Z');
    const after = at('2026-12-01T10:00:05Z', '2026-12-01T10:00:05.800Z');
    expect(sumSpending([before, after], now, since, true)).toMatchObject({ runs: 1, tokens: 10 });
    // A thread command is told apart the same way by its exact send.
    expect(sumSpending([{ ...run('2026-12-01T10:00:05Z', '2026-12-01T10:00:05Z', t(1, 0), 0, false), started_ms: since.ms + 1 }], now, since, true).tokens).toBe(1);
    // A record without its exact start (an older holon's) has whole seconds only: an entry that
    // started and ended in the second of the reopen is taken as the one before it.
    expect(sumSpending([run('2026-12-01T10:00:05Z', '2026-12-01T10:00:05Z', t(1, 0), 0, false)], now, since, true).tokens).toBe(0);
  });

  it('takes a run record\'s measured duration over its whole-second times', () => {
    expect(sumSpending([{ ...run('2026-12-01T10:00:00Z', '2026-12-01T10:00:00Z', null, null), duration_ms: 420 }], now).time).toBe(420);
  });

  it('is zero for no entries', () => expect(sumSpending([], now)).toEqual({ tokens: 0, cache_read: 0, cost: 0, runs: 0, time: 0, uncosted: 0, open: 0 }));
});

describe('timeSpentAt', () => {
  const now = Date.parse('2026-12-01T10:00:10Z');
  const open = run('2026-12-01T10:00:05Z', null, null, null);

  it('is when runs in flight spend what is left of a time limit, null when the clock changes nothing', () => {
    const s = sumSpending([open], now);
    expect(timeSpentAt({ time: 60_000 }, s, now)).toBe(Date.parse('2026-12-01T10:01:05Z'));
    expect(timeSpentAt({ time: 60_000 }, sumSpending([open, open], now), now)).toBe(now + 25_000);
    expect(timeSpentAt({ runs: 5 }, s, now)).toBeNull();
    expect(timeSpentAt({ time: 5_000 }, s, now)).toBeNull(); // spent already
    expect(timeSpentAt({ time: 60_000 }, sumSpending([run('2026-12-01T10:00:05Z', '2026-12-01T10:00:07Z', null, null)], now), now)).toBeNull();
  });
});

describe('budgetVerdict', () => {
  const spent = { tokens: 1600, cache_read: 50_000, cost: 0.2, runs: 2, time: 1000, uncosted: 0, open: 0 };

  it('is none without a limit, ok below the warning share, warn from it, exhausted once spent reaches the limit', () => {
    expect(budgetVerdict({}, spent).state).toBe('none');
    expect(budgetVerdict({ tokens: null }, spent).state).toBe('none');
    expect(budgetVerdict({ tokens: 10_000 }, spent)).toMatchObject({ state: 'ok', figure: 'tokens' });
    expect(budgetVerdict({ tokens: 2000 }, spent)).toMatchObject({ state: 'warn', figure: 'tokens', figures: [{ left: 400, ratio: 0.8 }] });
    expect(budgetVerdict({ tokens: 2000 }, spent, 0.9).state).toBe('ok');
    expect(budgetVerdict({ runs: 2 }, spent)).toMatchObject({ state: 'exhausted', figure: 'runs', figures: [{ spent: 2, left: 0 }] });
    expect(budgetVerdict({ tokens: 1000 }, spent).figures[0].left).toBe(0);
  });

  it('names the worst figure: exhausted beats warn, then the most used', () => {
    const v = budgetVerdict({ tokens: 2000, cost: 0.2, runs: 100, time: 1100 }, spent);
    expect(v).toMatchObject({ state: 'exhausted', figure: 'cost' });
    expect(describeFigures(v, 'worst')).toBe('cost 0.2usd of 0.2usd spent, 0usd left');
    expect(budgetVerdict({ tokens: 2000, time: 1100 }, spent).figure).toBe('time');
  });

  it('reads the warning share as a percentage or a fraction', () => {
    expect(parseWarnAt(undefined, 'x')).toBe(0.8);
    expect(parseWarnAt('90%', 'x')).toBe(0.9);
    expect(parseWarnAt(0.5, 'x')).toBe(0.5);
    expect(() => parseWarnAt('150%', 'holon.yaml budget')).toThrow(/holon.yaml budget: warn "150%"/);
  });
});

describe('dayWindow', () => {
  it('is the UTC day in UTC', () => {
    const w = dayWindow(Date.parse('2026-12-01T23:59:59Z'), 'UTC');
    expect(w).toEqual({ day: '2026-12-01', startMs: Date.parse('2026-12-01T00:00:00Z'), endMs: Date.parse('2026-12-02T00:00:00Z') });
  });

  it('starts a day whose midnight does not exist at its first instant (DST at 00:00: Asia/Beirut, Africa/Cairo)', () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    // Beirut 2026-03-29: 00:00 +02 jumps to 01:00 +03, so the 29th starts at 22:00 UTC on the 28th.
    const before = dayWindow(Date.parse('2026-03-28T21:20:00Z'), 'Asia/Beirut');
    expect([before.day, iso(before.startMs), iso(before.endMs)]).toEqual(['2026-03-28', '2026-03-27T22:00:00.000Z', '2026-03-28T22:00:00.000Z']);
    const after = dayWindow(Date.parse('2026-03-29T12:00:00Z'), 'Asia/Beirut');
    expect([after.day, iso(after.startMs), iso(after.endMs)]).toEqual(['2026-03-29', '2026-03-28T22:00:00.000Z', '2026-03-29T21:00:00.000Z']);
    const cairo = dayWindow(Date.parse('2026-04-24T10:00:00Z'), 'Africa/Cairo');
    expect([cairo.day, iso(cairo.startMs)]).toEqual(['2026-04-24', '2026-04-23T22:00:00.000Z']);
    // Every day window of a year in these zones holds its instant and meets the next one.
    for (const tz of ['Asia/Beirut', 'Africa/Cairo', 'America/Santiago', 'Europe/Paris']) {
      for (let t = Date.parse('2026-01-01T06:00:00Z'); t < Date.parse('2027-01-01T00:00:00Z'); t += 86_400_000) {
        const w = dayWindow(t, tz);
        expect(w.startMs <= t && t < w.endMs, `${tz} ${iso(t)}`).toBe(true);
        expect(dayWindow(w.endMs, tz).startMs, `${tz} ${iso(t)}`).toBe(w.endMs);
      }
    }
  });

  it('is the local day in another zone (Tokyo is UTC+9: its 1 December starts at 15:00 UTC the day before)', () => {
    const w = dayWindow(Date.parse('2026-11-30T16:00:00Z'), 'Asia/Tokyo');
    expect(w.day).toBe('2026-12-01');
    expect(new Date(w.startMs).toISOString()).toBe('2026-11-30T15:00:00.000Z');
    expect(new Date(w.endMs).toISOString()).toBe('2026-12-01T15:00:00.000Z');
  });

  it('has 23 hours on a spring-forward day', () => {
    const w = dayWindow(Date.parse('2026-03-29T12:00:00Z'), 'Europe/Paris');
    expect(w.day).toBe('2026-03-29');
    expect(new Date(w.startMs).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(w.endMs - w.startMs).toBe(23 * 3_600_000);
  });
});
