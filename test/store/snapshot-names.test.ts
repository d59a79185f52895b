import { describe, expect, it } from 'vitest';
import { snapshotNames } from '../../src/store/work-listing.js';

describe("a snapshot's names, looked up without splitting them", () => {
  const list = ['a.md', 'ab.md', 'b.md', 'a.md.md', 'c.md'];
  it('gives each name by position and each position by name, before and after it splits them', () => {
    // Twice the lookups it answers by scanning, so the second half goes through the split.
    const names = snapshotNames(list.join('\n'), list.length);
    for (let round = 0; round < 2; round++) {
      list.forEach((n, i) => {
        expect(names.at(i)).toBe(n);
        expect(names.indexOf(n)).toBe(i);
      });
    }
    expect(names.all()).toEqual(list);
  });

  it('finds only whole names: a prefix or a suffix of one is not it', () => {
    const names = snapshotNames(list.join('\n'), list.length);
    for (const n of ['a', 'b', '.md', 'md\nb.md', 'x.md']) expect(names.indexOf(n)).toBe(-1);
    expect(snapshotNames('only.md', 1).indexOf('only.md')).toBe(0);
    expect(snapshotNames('', 0).all()).toEqual([]);
  });
});
