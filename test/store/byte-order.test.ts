import { describe, expect, it } from 'vitest';
import { byteOrder } from '../../src/store/byte-order.js';

/** A keeper's listing puts added names where readdir (libuv: strcmp of the UTF-8 bytes) lists them. */
describe('byteOrder', () => {
  it('orders names as strcmp orders their UTF-8 bytes, astral characters too', () => {
    const names = ['w-b.md', 'w-a.md', 'w-A.md', 'w-é.md', 'w-\uffff.md', 'w-🙂.md', 'w-\ue000.md', 'w-.md', 'w-a0.md'];
    const want = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...names].sort(byteOrder)).toEqual(want);
    // Where UTF-16 order differs: a surrogate pair (U+1F642) sorts after U+FFFF in bytes, before it in code units.
    expect(byteOrder('w-🙂.md', 'w-\uffff.md')).toBeGreaterThan(0);
    expect('w-🙂.md' < 'w-\uffff.md').toBe(true);
  });
});
