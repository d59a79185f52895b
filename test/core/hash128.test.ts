import { describe, expect, it } from 'vitest';
import { Hash128 } from '../../src/core/hash128.js';

/** The frontier's fingerprint hash (core/hash128.ts): deterministic, framed, and moved by any change. */
const h = (...parts: string[]) => parts.reduce((x, p) => x.update(p), new Hash128()).digest();

describe('Hash128', () => {
  it('is 32 hex digits, the same for the same updates', () => {
    expect(h('a', 'bc')).toMatch(/^[0-9a-f]{32}$/);
    expect(h('a', 'bc')).toBe(h('a', 'bc'));
    expect(h()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('frames each update: where one ends counts', () => {
    const all = [h('a', 'bc'), h('ab', 'c'), h('abc'), h('abc', ''), h('', 'abc'), h(''), h()];
    expect(new Set(all).size).toBe(all.length);
  });

  it('moves with one character, one bit of one, or the order of two parts', () => {
    const digest = 'ab'.repeat(20);
    const base = h('\0main\03\0', digest);
    expect(h('\0main\03\0', `${digest.slice(0, -1)}c`)).not.toBe(base);
    expect(h('\0main\03\0', String.fromCharCode(digest.charCodeAt(0) ^ 1) + digest.slice(1))).not.toBe(base);
    expect(h(digest, '\0main\03\0')).not.toBe(base);
    // Code units past one byte (a name in any script) count whole.
    expect(h('ü')).not.toBe(h('ý'));
  });

  it('spreads: 20,000 near inputs give 20,000 hashes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(h(`\0main\0${i}\0`, `w-${i}.md`));
    expect(seen.size).toBe(20_000);
  });
});
