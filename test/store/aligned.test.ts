import { describe, expect, it } from 'vitest';
import { alignedLine, alignedView } from '../../src/store/aligned.js';
import { cutOfRows, cutParts, parseCut } from '../../src/store/frontier-cut.js';
import { parseTitleIndex, titleIndexBytes } from '../../src/store/frontier-titles.js';

/** Bytes as a big file read whole gives them: a buffer on its own memory (a small file's is a slice of node's pool, 8-aligned too). */
const asRead = (parts: Uint8Array[]) => {
  const joined = Buffer.concat(parts);
  const own = Buffer.from(new ArrayBuffer(joined.length));
  joined.copy(own);
  return own;
};

describe('numbers read from a cache file without a copy', () => {
  it('a line padded so that what follows starts at a multiple of 8 bytes, whatever came before it', () => {
    for (let before = 0; before < 20; before++) {
      for (const text of ['[]', '{"a":1}', '["é", "ü"]']) {
        const line = alignedLine(text, before);
        expect((before + line.length) % 8).toBe(0);
        expect(JSON.parse(line.toString())).toEqual(JSON.parse(text));
        expect(line.toString().trimEnd()).toBe(text);
        expect(line[line.length - 1]).toBe(10);
      }
    }
  });

  it('a view of the buffer where aligned, a copy with the same numbers where not', () => {
    const nums = Float64Array.from([1.5, NaN, -0, 2 ** 52]);
    const bytes = Buffer.from(nums.buffer);
    const at8 = asRead([Buffer.alloc(8), bytes]);
    const view = alignedView(Float64Array, at8, 8, 4);
    expect(view.buffer).toBe(at8.buffer);
    expect([...view]).toEqual([...nums]);
    const at3 = asRead([Buffer.alloc(3), bytes]);
    const copy = alignedView(Float64Array, at3, 3, 4);
    expect(copy.buffer).not.toBe(at3.buffer);
    expect([...copy]).toEqual([...nums]);
  });

  it('the title index and the entries left out, as stored after a token line, are read as views', () => {
    const line = Buffer.from('0123456789abcdef\n');
    const index = { listings: [{ agent: 'main', sig: 's', titles: 1, prios: 2, hidden: 3 }], channels: [[2, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]] as Array<[number, number]>, quads: Float64Array.from([0, 1, 2, 3, 40, 0, 2, 5, 6, 70]) };
    const file = asRead([line, ...titleIndexBytes(index, line.length)]);
    const read = parseTitleIndex(file.subarray(line.length))!;
    expect(read.quads.buffer).toBe(file.buffer);
    expect([...read.quads]).toEqual([...index.quads]);
    expect(read.listings).toEqual(index.listings);
    const rows = { keys: ['a', 'é'], codes: ['blocked', 'dependency_open'], nums: Float64Array.from([0, 1, 9, 0, 2, 8]) };
    const cutFile = asRead([line, ...cutParts(cutOfRows(rows)!, line.length)]);
    const got = parseCut(cutFile.subarray(line.length))!;
    expect(got.nums.buffer).toBe(cutFile.buffer);
    expect(got.codes.idx.buffer).toBe(cutFile.buffer);
    expect(got.keys.blob.buffer).toBe(cutFile.buffer);
    expect({ keys: got.keys.toArray(), codes: got.codes.toArray(), nums: got.nums }).toEqual(rows);
  });
});
