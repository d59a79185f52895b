import { describe, expect, it } from 'vitest';
import { checkGraph } from '../../src/core/graph-check.js';
import { assertSafeId, closeMatches, formatId } from '../../src/core/ids.js';
import { checkEvidence } from '../../src/core/resume.js';
import { humanDuration, iso, parseDuration, parseWhen } from '../../src/core/time.js';

describe('time', () => {
  it.each([
    ['90s', 90_000], ['45m', 2_700_000], ['2h30m', 9_000_000], ['1d', 86_400_000], ['500ms', 500],
  ])('parses %s', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', '2', 'h', '2 hours', '-1h', '0s'])('refuses %j', (text) => expect(() => parseDuration(text)).toThrow(/not a duration/));
  it('refuses a duration too long to be a time (it used to crash: "Invalid time value", exit 1)', () => {
    for (const text of ['99999999d', '9'.repeat(400) + 's']) expect(() => parseDuration(text, '--in')).toThrow(/too long/);
    expect(parseDuration('3650d')).toBe(3650 * 86_400_000);
  });
  it('formats UTC without milliseconds', () => expect(iso(Date.UTC(2026, 10, 30, 5, 0, 0, 999))).toBe('2026-11-30T05:00:00Z'));
  it('formats as toISOString does, from year 0 to 9999 and beyond, and refuses an invalid time', () => {
    const asIsoString = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const samples = [0, -1, 1, 999, 59_999, Date.UTC(2024, 1, 29, 23, 59, 59, 999), -62_167_219_200_000 /* 0000-01-01 */, Date.UTC(9999, 11, 31, 23, 59, 59), Date.UTC(10000, 0, 1), -62_198_755_200_001, 8.64e15];
    for (let k = 0; k < 500; k++) samples.push(Math.floor(((k * 7919) % 997) * 2.9e11 + k * 86_399_123) - 6e13);
    for (const ms of samples) expect(iso(ms)).toBe(asIsoString(ms));
    expect(() => iso(Number.NaN)).toThrow(RangeError);
  });
  it('parseWhen takes a duration or an ISO time', () => {
    expect(parseWhen('1h', 0)).toBe(3_600_000);
    expect(parseWhen('2026-11-30T05:00:00Z', 0)).toBe(Date.UTC(2026, 10, 30, 5));
    expect(() => parseWhen('2026-13-45', 0)).toThrow(/not an ISO-8601 time/);
  });
  it('humanDuration', () => expect(humanDuration(3_900_000)).toBe('1h 5m'));
});

describe('ids', () => {
  it('formats prefixed base32 ids', () => expect(formatId('w', new Uint8Array([0, 1, 2, 3, 31, 32, 33, 34]))).toBe('w-0123z012'));
  it.each(['../x', 'a/b', '..', '', 'x y', '.hidden'])('refuses %j', (id) => expect(() => assertSafeId(id)).toThrow(/not a valid id/));
  it('suggests close ids', () => expect(closeMatches('w-abcdefgh', ['w-abcdefgx', 'w-zzzzzzzz'])).toEqual(['w-abcdefgx']));
});

describe('graph check', () => {
  const n = (id: string, depends_on: string[] = []) => ({ id, file: `${id}.md`, depends_on, successors: [], superseded_by: null });
  it('finds duplicates, dangling dependencies and cycles', () => {
    const problems = checkGraph([n('a', ['b']), n('b', ['a']), n('c', ['zz']), n('c')], () => 3);
    const msgs = problems.map((p) => p.message);
    expect(msgs).toContain('duplicate id "c" (also in c.md)');
    expect(msgs).toContain('depends_on names "zz", which does not exist');
    expect(msgs.filter((m) => m.startsWith('dependency cycle'))).toEqual(['dependency cycle: a -> b -> a']);
  });
  it('a clean graph has no problems', () => expect(checkGraph([n('a'), n('b', ['a'])], () => 1)).toEqual([]));
});

describe('evidence freshness', () => {
  it('marks evidence from another commit or none for recheck', () => {
    const r = checkEvidence([
      { at: null, text: 'same', commit: 'abc1234' },
      { at: null, text: 'old', commit: 'fff0000' },
      { at: null, text: 'none' },
    ], 'abc1234deadbeef');
    expect(r.map((e) => e.recheck)).toEqual([false, true, true]);
  });
});
