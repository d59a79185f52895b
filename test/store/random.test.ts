import { describe, expect, it } from 'vitest';
import { formatId } from '../../src/core/ids.js';
import { randomBytes } from '../../src/store/random.js';

describe('randomBytes (ids and temp names, from /dev/urandom)', () => {
  it('gives the length asked for, and ids that do not repeat', () => {
    expect([1, 4, 8, 32, 4096].map((n) => randomBytes(n).length)).toEqual([1, 4, 8, 32, 4096]);
    const ids = new Set(Array.from({ length: 20_000 }, () => formatId('w', randomBytes(8))));
    expect(ids.size).toBe(20_000);
    // Every byte value turns up: not a constant or a short cycle.
    const seen = new Set(randomBytes(65_536));
    expect(seen.size).toBe(256);
  });
});
