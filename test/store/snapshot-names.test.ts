import { describe, expect, it } from 'vitest';
import { nameStarts } from '../../src/store/stat-index.js';
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

  it('answers the same from the starts a snapshot stores, without a scan or a split', () => {
    const joined = ['é.md', ...list, '漢字.md'].join('\n');
    const count = list.length + 2;
    const plain = snapshotNames(joined, count);
    const stored = snapshotNames(joined, count, nameStarts(joined, count));
    for (let i = -1; i <= count; i++) expect(stored.at(i)).toBe(plain.at(i));
    for (const n of [...list, 'é.md', '漢字.md', 'a', '.md', 'x.md', 'md\nb.md']) expect(stored.indexOf(n)).toBe(plain.indexOf(n));
    expect(snapshotNames('only.md', 1, nameStarts('only.md', 1)).indexOf('only.md')).toBe(0);
    expect(nameStarts('', 0)).toEqual(Uint32Array.of(1));
  });
});
