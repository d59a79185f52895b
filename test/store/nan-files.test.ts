import { describe, expect, it } from 'vitest';
import { nanFiles } from '../../src/store/nan-files.js';

/**
 * The snapshot's unvouched files (store/stat-index.ts, nanFiles): found by the bytes of NaN, with
 * every file looked at when a NaN of other bytes is there, so the answer is the plain loop's.
 */
const loop = (stats: Float64Array) => {
  const out: number[] = [];
  for (let i = 0; 4 * i < stats.length; i++) if (Number.isNaN(stats[4 * i])) out.push(i);
  return out;
};

/** nanFiles, and the numbers left as they were to the byte (it clears what it found in place, then puts it back). */
const nanFilesKept = (stats: Float64Array) => {
  const before = Buffer.from(stats.buffer, stats.byteOffset, stats.byteLength).toString('hex');
  const out = nanFiles(stats);
  expect(Buffer.from(stats.buffer, stats.byteOffset, stats.byteLength).toString('hex')).toBe(before);
  return out;
};

describe('files with NaN numbers in a snapshot', () => {
  it('are the ones a loop over every file finds', () => {
    const stats = new Float64Array(4 * 1000).map((_, j) => j + 0.5);
    expect(nanFilesKept(stats)).toEqual([]);
    // Whole files (as putStat and quickDigest write them), the first and the last among them.
    for (const i of [0, 7, 500, 999]) stats.fill(NaN, 4 * i, 4 * i + 4);
    // A NaN in another number of a file is not one of them (the loop looks at the first only).
    stats[4 * 300 + 2] = NaN;
    expect(nanFilesKept(stats)).toEqual([0, 7, 500, 999]);
    expect(nanFilesKept(stats)).toEqual(loop(stats));
    // A view at an offset into a bigger buffer, as the snapshot reader makes them.
    const outer = new Float64Array(8 + stats.length);
    outer.set(stats, 8);
    expect(nanFilesKept(outer.subarray(8))).toEqual(loop(stats));
  });

  it('are all found when a NaN has other bytes (not this build\'s)', () => {
    const stats = new Float64Array(4 * 100).fill(1);
    stats[4 * 3] = NaN;
    // The negative quiet NaN, as x86 computes 0/0: a search by the literal's bytes misses it.
    new DataView(stats.buffer).setBigUint64(8 * 4 * 42, 0xfff8000000000000n, true);
    expect(Number.isNaN(stats[4 * 42])).toBe(true);
    expect(nanFilesKept(stats)).toEqual([3, 42]);
  });

  it('ignores the bytes of NaN across two numbers', () => {
    const stats = new Float64Array(12).fill(0);
    // A real one later, so that the search runs past the false one.
    stats[8] = NaN;
    const nan = new Uint8Array(new Float64Array([NaN]).buffer);
    // The pattern at byte 4: half of number 0 and half of number 1, neither of them NaN.
    new Uint8Array(stats.buffer).set(nan, 4);
    expect(Number.isNaN(stats[0]) || Number.isNaN(stats[1])).toBe(false);
    expect(nanFilesKept(stats)).toEqual([2]);
  });
});
