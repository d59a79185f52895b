import { describe, expect, it } from 'vitest';
import { describeHolder, holderVerdict, parseHolder, type SyncHolder } from '../../src/core/sync-holder.js';

const h: SyncHolder = { pid: 4242, host: 'laptop', what: 'holon sync', token: 'ab12', since: '2026-12-01T10:00:00.000Z' };
const MIN = 60_000;

describe('the sync lock holder record', () => {
  it.each([
    ['absent', null],
    ['empty', ''],
    ['torn', '{"pid": 42, "ho'],
    ['not an object', '42'],
    ['no pid', JSON.stringify({ ...h, pid: undefined })],
    ['pid not a whole number', JSON.stringify({ ...h, pid: 1.5 })],
    ['no token', JSON.stringify({ ...h, token: 7 })],
  ])('%s: no holder', (_, text) => {
    expect(parseHolder(text)).toBeNull();
  });

  it('reads a holder; what and since default when missing', () => {
    expect(parseHolder(JSON.stringify(h))).toEqual(h);
    expect(parseHolder(JSON.stringify({ pid: 7, host: 'ci', token: 't' }))).toEqual({ pid: 7, host: 'ci', what: 'holon', token: 't', since: '' });
  });

  const alive = (pids: number[]) => (pid: number) => pids.includes(pid);
  it.each([
    ['no record', null, 'laptop', [], 0, 'free'],
    ['a live pid on this host, fresh beat', h, 'laptop', [4242], 1 * MIN, 'held'],
    ['a dead pid on this host: at once', h, 'laptop', [], 0, 'dead'],
    ['a dead pid on this host, fresh beat: still dead', h, 'laptop', [99], 0, 'dead'],
    ['a live pid, no beat for longer than the stale time (a reused pid)', h, 'laptop', [4242], 11 * MIN, 'stale'],
    ['another host: its pid means nothing here, a fresh beat holds', h, 'server', [], 9 * MIN, 'held'],
    ['another host, no beat for longer than the stale time', h, 'server', [], 11 * MIN, 'stale'],
  ] as const)('%s: %s', (_, holder, host, pids, age, verdict) => {
    const now = 1_000_000_000;
    expect(holderVerdict(holder, now - age, { host, nowMs: now, staleMs: 10 * MIN, alive: alive([...pids]) })).toBe(verdict);
  });

  it('describes the holder for messages', () => {
    expect(describeHolder(h)).toBe('holon sync (pid 4242 on laptop, since 2026-12-01T10:00:00.000Z)');
    expect(describeHolder({ ...h, since: '' })).toBe('holon sync (pid 4242 on laptop)');
  });
});
