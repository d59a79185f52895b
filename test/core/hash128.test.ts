import { describe, expect, it } from 'vitest';
import { Hash128 } from '../../src/core/hash128.js';

/** The frontier's fingerprint hash (core/hash128.ts): deterministic, framed, and moved by any change. */
const h = (...parts: Array<string | Uint8Array>) => parts.reduce((x, p) => x.update(p), new Hash128()).digest();

describe('Hash128', () => {
  it('is 32 hex digits, the same for the same updates', () => {
    expect(h('a', 'bc')).toMatch(/^[0-9a-f]{32}$/);
    expect(h('a', 'bc')).toBe(h('a', 'bc'));
    expect(h()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('frames each update: where one ends and its kind count', () => {
    const all = [h('a', 'bc'), h('ab', 'c'), h('abc'), h('abc', ''), h(new Uint8Array([97, 98, 99])), h(''), h()];
    expect(new Set(all).size).toBe(all.length);
  });

  it('moves with one bit of a number, one character, or the order of two parts', () => {
    const stats = new Float64Array([1.5, 2, 1700000000000.25, 1700000000001]);
    const base = h('names', new Uint8Array(stats.buffer));
    const bytes = new Uint8Array(stats.buffer.slice(0));
    bytes[9] ^= 1;
    expect(h('names', bytes)).not.toBe(base);
    expect(h('namez', new Uint8Array(stats.buffer))).not.toBe(base);
    expect(h(new Uint8Array(stats.buffer), 'names')).not.toBe(base);
    // Unaligned bytes give the same hash as aligned ones of the same content.
    const off = new Uint8Array(stats.byteLength + 1);
    off.set(new Uint8Array(stats.buffer), 1);
    expect(h('names', off.subarray(1))).toBe(base);
  });

  it('spreads: 20,000 near inputs give 20,000 hashes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(h(`w-${i}.md`, new Uint8Array(new Float64Array([i, i + 1]).buffer)));
    expect(seen.size).toBe(20_000);
  });
});
