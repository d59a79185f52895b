import { describe, expect, it } from 'vitest';
import { jsonParts } from '../../src/core/json-parts.js';

const whole = (v: unknown, chunk?: number) => [...jsonParts(v, chunk)].join('');

describe('jsonParts', () => {
  const frontierLike = {
    agent: 'main', now: '2026-12-01T10:00:00Z', counts: { total: 3, by_code: { runnable: 2 } },
    runnable: [{ id: 'w-1', title: 'line\nbreak "quoted" ü', claim: null, list: [1, [2, 3], {}] }, { id: 'w-2', title: '', nested: { a: { b: [] } } }],
    empty: [], none: {}, skipped: undefined, fn: () => 1, date: new Date(0), holes: [undefined, () => 1, null, 0, false, ''],
  };
  it.each([
    ['a frontier-like object', frontierLike],
    ['scalars', 'text'], ['a number', 42], ['null', null], ['an empty array', []], ['an empty object', {}],
    ['an array of arrays', [[1, 2], [], [[3]]]],
  ])('writes %s as JSON.stringify(value, null, 2) does, to the byte', (_name, v) => {
    expect(whole(v)).toBe(JSON.stringify(v, null, 2));
    expect(whole(v, 1)).toBe(JSON.stringify(v, null, 2));
  });
  it('writes parts of about the chunk size, not one string', () => {
    const big = { runnable: Array.from({ length: 2000 }, (_, i) => ({ id: `w-${i}`, title: `Task ${i}` })) };
    const parts = [...jsonParts(big, 4096)];
    expect(parts.length).toBeGreaterThan(10);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(4096 + 200);
    expect(parts.join('')).toBe(JSON.stringify(big, null, 2));
  });
});

describe('jsonParts on a frontier of thousands of entries', () => {
  it('writes each channel a batch of entries at a time, the same bytes as JSON.stringify', () => {
    const entry = (i: number) => ({ id: `w-${i}`, title: i % 7 ? `Task ${i}` : 'ü "q" \\ \n', claim: i % 3 ? null : { holder: 'agent:x', expires_at: null }, blocks: i % 5 ? [] : ['w-1', 'w-2'], gone: undefined });
    const f = { counts: { total: 5000 }, runnable: Array.from({ length: 5000 }, (_, i) => entry(i)), waiting: [entry(1)], truncated: {} };
    for (const chunk of [1, 64, 4096, 1 << 16]) expect(whole(f, chunk)).toBe(JSON.stringify(f, null, 2));
  });
});
