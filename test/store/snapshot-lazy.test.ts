import { readdirSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GRAPH_STAMP } from '../../src/store/graph-index.js';
import { nanFiles } from '../../src/store/nan-files.js';
import { bytesNames, nanFilesOf, prioOf, readStatIndex, rowOf, setNanBit, startsOf, statsOf, titleOf, writeStatIndex, type StatIndex } from '../../src/store/stat-index.js';
import { OPEN_MAX, unreadBytes } from '../../src/store/stat-index-read.js';
import { namesOfSnapshot, snapshotNames } from '../../src/store/work-listing.js';
import { tempDir } from '../helpers/cli.js';

/**
 * A snapshot's names are decoded on first need (ASCII names are looked up in their bytes), and its numbers (store/stat-index.ts) are read on first need: one file's alone (statsOf), or
 * all of them (`stats`), from the descriptor the rest was read through. What a reader gets is always
 * the snapshot it opened, whatever was stored over it since, and a patch made through statsOf
 * survives the whole read.
 */
const snapshot = (n: number, base: number, nan: number[] = []): StatIndex => {
  const stats = Float64Array.from({ length: 4 * n }, (_, j) => base + j + 0.25);
  for (const i of nan) stats.fill(NaN, 4 * i, 4 * i + 4);
  return {
    names: Array.from({ length: n }, (_, i) => `w-${i}.md`).join('\n'), count: n, stats, hashes: new Float64Array(n).fill(base), titles: new Float64Array(n), prios: new Float64Array(n),
    sums: Float64Array.of(base * n, 0, 0), mark: 'e1:7',
  };
};
const openFds = () => (process.platform === 'linux' ? readdirSync('/proc/self/fd').length : 0);

describe('a snapshot\'s numbers', () => {
  it('are read one file at a time or whole, as written, from the snapshot that was opened', () => {
    const dir = tempDir();
    const path = join(dir, 'graph-main.idx');
    const first = snapshot(20, 1000, [3, 17]);
    writeStatIndex(path, first, GRAPH_STAMP, dir, 'd'.repeat(40));
    const fds = openFds();
    const read = readStatIndex(path, GRAPH_STAMP)!;
    // The files stored as NaN, from the bits: what a look at every number finds.
    expect(nanFilesOf(read)).toEqual([3, 17]);
    expect([...statsOf(read, 5)]).toEqual([...first.stats.subarray(20, 24)]);
    // Another snapshot stored over it (by rename, as always): this reader still reads the one it opened.
    writeStatIndex(path, snapshot(20, 5000), GRAPH_STAMP, dir, 'e'.repeat(40));
    expect([...statsOf(read, 6)]).toEqual([...first.stats.subarray(24, 28)]);
    // Patched in place through statsOf (as quickDigest does), then read whole: the patch stays.
    statsOf(read, 6).set([1, 2, 3, 4]);
    setNanBit(read, 6, false);
    const whole = read.stats;
    const want = new Float64Array(first.stats);
    want.set([1, 2, 3, 4], 24);
    expect(Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength).equals(Buffer.from(want.buffer))).toBe(true);
    // Read whole, its file is closed.
    if (process.platform === 'linux') expect(openFds()).toBe(fds);
    expect(read.stats).toBe(whole);
    const other = readStatIndex(path, GRAPH_STAMP)!;
    expect([...statsOf(other, 6)]).toEqual([5024.25, 5025.25, 5026.25, 5027.25]);
    expect(nanFilesOf(other)).toEqual([]);
  });

  it('hashes are read one at a time too, and a patch of one survives the whole read', () => {
    const dir = tempDir();
    const path = join(dir, 'graph-main.idx');
    const x = snapshot(6, 100);
    x.titles = Float64Array.of(11, 12, 13, 14, 15, 16);
    x.prios = Float64Array.of(21, 22, 23, 24, 25, 26);
    writeStatIndex(path, x, GRAPH_STAMP, dir, 'd'.repeat(40));
    const read = readStatIndex(path, GRAPH_STAMP)!;
    expect([titleOf(read, 4), prioOf(read, 1)]).toEqual([15, 22]);
    // Past its files: what the arrays give there.
    expect(titleOf(readStatIndex(path, GRAPH_STAMP)!, 6)).toBeUndefined();
    const row = rowOf(read, 2);
    expect([row.hashes[2], row.titles[2], row.prios[2], ...row.stats.subarray(8, 12)]).toEqual([100, 13, 23, ...x.stats.subarray(8, 12)]);
    row.titles[2] = 99;
    row.prios[2] = 98;
    expect([...read.titles]).toEqual([11, 12, 99, 14, 15, 16]);
    expect([...read.prios]).toEqual([21, 22, 98, 24, 25, 26]);
    expect([...read.hashes]).toEqual([100, 100, 100, 100, 100, 100]);
    // Read whole: the plain arrays from then on.
    expect(titleOf(read, 2)).toBe(99);
    expect(rowOf(read, 2).titles).toBe(read.titles);
  });

  it('that cannot be read (the file cut short in place, which holon never does) throw every time, never give numbers not read', () => {
    const dir = tempDir();
    const path = join(dir, 'graph-main.idx');
    writeStatIndex(path, snapshot(300, 7), GRAPH_STAMP, dir, 'd'.repeat(40));
    const read = readStatIndex(path, GRAPH_STAMP)!;
    const first = [...statsOf(read, 0)];
    truncateSync(path, 100);
    expect(() => read.stats).toThrow(/graph snapshot .* did not read as it was written/);
    expect(() => read.titles).toThrow(/did not read as it was written/);
    expect(() => statsOf(read, 200)).toThrow(/did not read as it was written/);
    // What was read before stays what it read.
    expect([...statsOf(read, 0)]).toEqual(first);
  });

  it('are written back without being read whole: copied from the old file, the patched ones put over them', () => {
    const dir = tempDir();
    const path = join(dir, 'graph-main.idx');
    // 3,000 files: 168 KB of numbers, copied in several chunks.
    const n = 3000;
    const first = snapshot(n, 7, [5]);
    first.titles = Float64Array.from({ length: n }, (_, i) => i + 0.5);
    first.prios = Float64Array.from({ length: n }, (_, i) => 2 * i);
    writeStatIndex(path, first, GRAPH_STAMP, dir, 'd'.repeat(40));
    const read = readStatIndex(path, GRAPH_STAMP)!;
    // Patched as quickDigest patches a file it read again: its row, its bit, the sums.
    const want = { stats: new Float64Array(first.stats), hashes: new Float64Array(first.hashes), titles: new Float64Array(first.titles), prios: new Float64Array(first.prios) };
    for (const i of [0, 5, 2047, 2048, n - 1]) {
      const row = rowOf(read, i);
      row.stats.set([i, i, i, i], 4 * i);
      row.titles[i] = -i;
      row.prios[i] = -2 * i;
      setNanBit(read, i, false);
      want.stats.set([i, i, i, i], 4 * i);
      want.titles[i] = -i;
      want.prios[i] = -2 * i;
    }
    read.sums[1] = 42;
    // Under a mark of another length: the numbers move in the file.
    writeStatIndex(path, read, GRAPH_STAMP, dir, 'e'.repeat(40), 'e12:345678');
    expect(unreadBytes(read)).not.toBeNull();
    const again = readStatIndex(path, GRAPH_STAMP)!;
    expect([again.mark, again.digest, again.names, again.sums[1]]).toEqual(['e12:345678', 'e'.repeat(40), first.names, 42]);
    expect(nanFilesOf(again)).toEqual([]);
    for (const k of ['stats', 'hashes', 'titles', 'prios'] as const) expect(Buffer.from(again[k].buffer, again[k].byteOffset, again[k].byteLength).equals(Buffer.from(want[k].buffer)), k).toBe(true);
    expect(nanFiles(again.stats)).toEqual([]);
  });

  it('keep their NaN bits as they are patched and written back', () => {
    const dir = tempDir();
    const path = join(dir, 'graph-main.idx');
    writeStatIndex(path, snapshot(9, 10, [0]), GRAPH_STAMP, dir, 'd'.repeat(40));
    const read = readStatIndex(path, GRAPH_STAMP)!;
    statsOf(read, 8).fill(NaN);
    setNanBit(read, 8, true);
    statsOf(read, 0).set([1, 2, 3, 4]);
    setNanBit(read, 0, false);
    expect(nanFilesOf(read)).toEqual([8]);
    // Written back from the bytes it was read from, with bits from its numbers as they are.
    writeStatIndex(path, read, GRAPH_STAMP, dir, 'e'.repeat(40), 'e1:8');
    const again = readStatIndex(path, GRAPH_STAMP)!;
    expect(nanFilesOf(again)).toEqual([8]);
    expect(nanFiles(again.stats)).toEqual([8]);
    expect([...statsOf(again, 0)]).toEqual([1, 2, 3, 4]);
    // A file past the count is no file of it.
    expect(() => statsOf(readStatIndex(path, GRAPH_STAMP)!, 9)).toThrow(/no file 9/);
  });
});

describe('a snapshot\'s names', () => {
  const write = (names: string[]) => {
    const dir = tempDir();
    const path = join(dir, 'graph-main.idx');
    const x = snapshot(names.length, 1);
    x.names = names.join('\n');
    writeStatIndex(path, x, GRAPH_STAMP, dir, 'd'.repeat(40));
    return path;
  };

  it('are found in their bytes while ASCII, as in the decoded string, and decoded only when asked for whole', () => {
    const names = ['a.md', 'ab.md', 'b.md', 'ba.md', 'w-1.md', 'w-10.md', 'z.md'];
    const path = write(names);
    const read = readStatIndex(path, GRAPH_STAMP)!;
    const bytes = bytesNames(read)!;
    expect(bytes).not.toBeNull();
    const str = snapshotNames(names.join('\n'), names.length, startsOf(readStatIndex(path, GRAPH_STAMP)!));
    for (const q of [...names, 'b', '.md', 'a', 'z', 'w-1', '', 'x.md', 'é.md', '\u0141.md']) expect(bytes.indexOf(q), q).toBe(str.indexOf(q));
    names.forEach((n, i) => expect(bytes.at(i)).toBe(n));
    expect(bytes.at(names.length)).toBe(str.at(names.length));
    // The listing's view of them: from the bytes until something wants the string.
    const lazy = namesOfSnapshot(read);
    expect([lazy.at(3), lazy.indexOf('w-10.md')]).toEqual(['ba.md', 5]);
    expect(lazy.all()).toEqual(names);
    expect(read.names).toBe(names.join('\n'));
    expect(bytesNames(read)).toBeNull();
    expect([lazy.at(3), lazy.indexOf('w-10.md')]).toEqual(['ba.md', 5]);
    expect(startsOf(read)).toBeDefined();
  });

  it('are decoded at once where they are not ASCII, and a copy with other names keeps none of the starts', () => {
    const path = write(['a.md', 'é.md', 'z.md']);
    const read = readStatIndex(path, GRAPH_STAMP)!;
    expect(bytesNames(read)).toBeNull();
    expect(namesOfSnapshot(read).indexOf('é.md')).toBe(1);
    const ascii = readStatIndex(write(['a.md', 'b.md']), GRAPH_STAMP)!;
    expect(startsOf({ ...ascii, names: 'a.md\nc.md' })).toBeUndefined();
    expect(startsOf({ ...ascii })).toBeDefined();
  });

  it('are not decoded when the snapshot as read is written back under a new mark, and a copy with other names writes those', () => {
    const names = ['a.md', 'b.md', 'c.md'];
    const path = write(names);
    const read = readStatIndex(path, GRAPH_STAMP)!;
    writeStatIndex(path, read, GRAPH_STAMP, tempDir(), 'e'.repeat(40), 'e2:9');
    expect(bytesNames(read)).not.toBeNull();
    const again = readStatIndex(path, GRAPH_STAMP)!;
    expect([again.names, again.mark, again.digest]).toEqual([names.join('\n'), 'e2:9', 'e'.repeat(40)]);
    // A copy whose names are not its bytes' (the same count): written from its own names.
    writeStatIndex(path, { ...again, names: 'x.md\ny.md\nz.md' }, GRAPH_STAMP, tempDir(), 'f'.repeat(40));
    expect(readStatIndex(path, GRAPH_STAMP)!.names).toBe('x.md\ny.md\nz.md');
  });
});

// Last in this file: the snapshots it holds keep their files open until they are collected, so a
// snapshot read after it in this process would have its numbers read at once, not on first need.
describe('a snapshot read past the open files a process keeps', () => {
  it('are read at once, the names still not decoded', () => {
    const dir = tempDir();
    const path = join(dir, 'graph-main.idx');
    const x = snapshot(5, 300, [2]);
    writeStatIndex(path, x, GRAPH_STAMP, dir, 'd'.repeat(40));
    // Each of these keeps its file open for its numbers; with them all held, the next one cannot.
    const held = Array.from({ length: OPEN_MAX }, () => readStatIndex(path, GRAPH_STAMP)!);
    const fds = openFds();
    const past = readStatIndex(path, GRAPH_STAMP)!;
    if (process.platform === 'linux') expect(openFds()).toBe(fds);
    expect(bytesNames(past)).not.toBeNull();
    expect([...statsOf(past, 4)]).toEqual([...x.stats.subarray(16, 20)]);
    expect(() => statsOf(past, 5)).toThrow(/no file 5/);
    expect(nanFilesOf(past)).toEqual([2]);
    expect(past.hashes).toEqual(x.hashes);
    // Written back from its own bytes, under a new mark: still no decode.
    writeStatIndex(path, past, GRAPH_STAMP, dir, 'e'.repeat(40), 'e3:1');
    expect(bytesNames(past)).not.toBeNull();
    expect(readStatIndex(path, GRAPH_STAMP)!.mark).toBe('e3:1');
    expect(held.length).toBe(OPEN_MAX);
  });
});
