import { describe, expect, it } from 'vitest';
import { CodeColumn, FixedStrings } from '../../src/store/cut-columns.js';
import { cutOfRows, cutParts, inKeyOrder, parseCut, type CutIndex, type CutRows } from '../../src/store/frontier-cut.js';
import { depParts, DepRows, parseDeps, type DepIndex, type DepRow } from '../../src/store/frontier-deps.js';
import { prng } from '../helpers/fuzz-home.js';

/**
 * The read index's rows are searched in their text, never parsed whole (store/frontier-deps.ts): a
 * row must be found by its id and a reader by what it read whatever the ids hold (hand-edited
 * depends_on can name anything), and text that only looks like an id must never make a reader.
 */
describe('DepRows', () => {
  const row = (reads: string[], at: number | null = 7, deps: string | null = null): DepRow => ({ deps, reads, at });
  const odd = ['a"b', 'c,d', 'back\\slash', 'new\nline', 'é 漢字', 'w-1'];
  const rows = DepRows.of([
    ['w-2', row(['w-1'], 1, 'w-1')],
    ['w-3', row(['w-10', 'w-11'], 2)],
    // Holds the characters of "w-1" inside other strings only.
    ['x', row(['"w-1"', 'w-1x', 'aw-1'], 3, '"w-1"')],
    ...odd.map((id, n): [string, DepRow] => [`r${n}`, row([id], 100 + n)]),
    ['deps-only', row([], null, 'w-1\nw-3')],
    ['nothing', row([], null)],
  ]);

  it('finds a row by its id, and none for an id without one', () => {
    expect(rows.get('w-2')).toEqual(row(['w-1'], 1, 'w-1'));
    expect(rows.get('deps-only')).toEqual(row([], null, 'w-1\nw-3'));
    expect(rows.get('nothing')).toBeUndefined();
    expect(rows.get('w')).toBeUndefined();
    expect(rows.get('"w-1"')).toBeUndefined();
  });

  it('finds the readers of an id, and no line that only holds its characters', () => {
    expect([...rows.readersOf(['w-1'], 10)!]).toEqual([['w-2', 1], ['r5', 105]]);
    expect([...rows.readersOf(['w-10', 'w-11'], 10)!]).toEqual([['w-3', 2]]);
    for (const [n, id] of odd.entries()) expect(rows.readersOf([id], 10)!.get(`r${n}`)).toBe(100 + n);
    expect(rows.readersOf(['"w-1"'], 10)!.get('x')).toBe(3);
    expect(rows.readersOf(['nobody'], 10)!.size).toBe(0);
  });

  it('says past how many readers it stops', () => {
    const many = DepRows.of(Array.from({ length: 5 }, (_, n): [string, DepRow] => [`r${n}`, row(['hub'], n)]));
    expect(many.readersOf(['hub'], 5)!.size).toBe(5);
    expect(many.readersOf(['hub'], 4)).toBeNull();
  });

  it('replaces, adds and removes rows', () => {
    const next = rows.with(new Map([
      ['w-2', row([], null)],
      ['w-3', row(['w-12'], 9)],
      ['new', row(['w-1'], 11)],
    ]));
    expect(next.get('w-2')).toBeUndefined();
    expect(next.get('w-3')).toEqual(row(['w-12'], 9));
    expect([...next.readersOf(['w-1'], 10)!.keys()].sort()).toEqual(['new', 'r5']);
    expect(next.get('deps-only')).toEqual(rows.get('deps-only'));
    expect(DepRows.valid(next.text)).toBe(true);
  });

  it('is read back as stored, and an index of the older layout (one JSON object) is not taken', () => {
    const d: DepIndex = { special: ['g'], superseded: [], odd: ['o'], cutEntries: {}, rows };
    const back = parseDeps(Buffer.concat(depParts(d)))!;
    expect(back.rows.text.equals(rows.text)).toBe(true);
    expect({ ...back, rows: null }).toEqual({ ...d, rows: null });
    const old = JSON.stringify({ special: [], deps: {}, reads: { 'w-2': ['w-1'] }, at: { 'w-2': 1 }, superseded: [], odd: [], cutCodes: [], cutEntries: {} });
    expect(parseDeps(Buffer.from(old))).toBeNull();
    expect(parseDeps(Buffer.from(`${old}\n`))).toBeNull();
    // Cut short (a row without its newline).
    expect(parseDeps(Buffer.concat(depParts(d)).subarray(0, -1))).toBeNull();
    // The head of version 2 (the codes of the entries left out were in it, now in the cut's file).
    expect(parseDeps(Buffer.concat([Buffer.from(JSON.stringify({ v: 2, special: [], superseded: [], odd: [], cutCodes: [], cutEntries: {} })), rows.text]))).toBeNull();
  });
});

const rowsOfCut = (cut: CutIndex): CutRows => ({ keys: cut.keys.toArray(), codes: cut.codes.toArray(), nums: cut.nums.slice() });

describe('the cut as stored', () => {
  const stored = (rows: CutRows) => Buffer.concat(cutParts(cutOfRows(rows)!));
  const back = (buf: Buffer) => {
    const cut = parseCut(buf);
    return cut && rowsOfCut(cut);
  };
  it('is read back as written, and neither an older layout nor a cut-short file is taken', () => {
    const rows: CutRows = { keys: ['14 0\u0000w-3', 'odd "key"\nwith a newline', '', 'é 漢字 \u{1F600}'], codes: ['dependency_open', 'claimed_by_other', 'blocked', 'blocked'], nums: Float64Array.from([0, 3, 123456789012, 1, 2 ** 31, 0.5, 0, 0, 0, 2, 5, 7]) };
    const bytes = stored(rows);
    expect(back(bytes)).toEqual(rows);
    // A cut made of a part of a bigger array of numbers is stored as that part only.
    const part: CutRows = { keys: ['b'], codes: ['blocked'], nums: Float64Array.from([9, 9, 9, 1, 2, 3]).subarray(3) };
    expect(back(stored(part))).toEqual({ keys: ['b'], codes: ['blocked'], nums: Float64Array.from([1, 2, 3]) });
    expect(back(stored({ keys: [], codes: [], nums: new Float64Array(0) }))).toEqual({ keys: [], codes: [], nums: new Float64Array(0) });
    expect(parseCut(bytes.subarray(0, -1))).toBeNull();
    // The older layouts: keys and codes as one JSON line, the keys alone on the line (the codes were
    // in the read index), and one JSON array of [listing, position, priority hash, key] per entry.
    expect(parseCut(Buffer.concat([Buffer.from(`${JSON.stringify([['b'], ['blocked']])}\n`), Buffer.from(Float64Array.from([1, 2, 3]).buffer)]))).toBeNull();
    expect(parseCut(Buffer.concat([Buffer.from(`${JSON.stringify(['b'])}\n`), Buffer.from(Float64Array.from([1, 2, 3]).buffer)]))).toBeNull();
    expect(parseCut(Buffer.from(JSON.stringify([[0, 3, 123456789012, '14 0\u0000w-3']])))).toBeNull();
    // A width no writer makes (a damaged file): not taken, whatever it would have a patch allocate.
    for (const head of ['[0,4294967296,[]]', '[0,8,[]]', '[0,24,[]]', '[0,1e300,[]]', '[-1,16,[]]']) expect(parseCut(Buffer.from(`${head}\n`)), head).toBeNull();
    expect(parseCut(Buffer.from('[0,16,[]]\n'))).not.toBeNull();
  });

  it('keeps no key longer than a slot may be: such a cut is not kept, and a patch evaluates', () => {
    expect(cutOfRows({ keys: ['a', 'k'.repeat(5000)], codes: ['blocked', 'blocked'], nums: new Float64Array(6) })).toBeNull();
  });

  it('keeps no key that UTF-8 would change (a lone surrogate): such a cut is not kept, and a patch evaluates', () => {
    expect(cutOfRows({ keys: ['a', 'b\ud800'], codes: ['blocked', 'blocked'], nums: new Float64Array(6) })).toBeNull();
  });

  it('copies ranges as they are, and puts a longer key and new codes in with the rest', () => {
    const was = parseCut(stored({ keys: ['k1', 'k2', 'k3'], codes: ['blocked', 'dependency_open', 'blocked'], nums: Float64Array.from([0, 1, 1, 0, 2, 2, 0, 3, 3]) }))!;
    const long = `k2.5${'x'.repeat(80)}`;
    const keys = FixedStrings.concat([was.keys.slice(0, 2), FixedStrings.of([long], was.keys.width)!, was.keys.slice(2, 3)]);
    const codes = CodeColumn.concat([was.codes.slice(0, 2), CodeColumn.of(['claimed_by_other']), was.codes.slice(2, 3)], was.codes.list);
    expect(keys.toArray()).toEqual(['k1', 'k2', long, 'k3']);
    expect(codes.toArray()).toEqual(['blocked', 'dependency_open', 'claimed_by_other', 'blocked']);
    expect(codes.list.slice(0, was.codes.list.length)).toEqual(was.codes.list);
    expect(was.keys.at(3)).toBeUndefined();
    expect(was.codes.at(-1)).toBeUndefined();
  });
});

describe('the cut in key order after a priority changed in it (inKeyOrder)', () => {
  /** A cut of `n` entries in key order: each entry's code and numbers tell which it is. */
  const cutOf = (n: number): CutRows => {
    const keys = Array.from({ length: n }, (_, i) => `k${String(i * 10).padStart(6, '0')}`);
    return { keys, codes: keys.map((k) => `c-${k}`), nums: Float64Array.from(keys.flatMap((_, i) => [0, i, 1000 + i])) };
  };
  /** Per entry: key, code, position. */
  const rows = (c: CutRows) => c.keys.map((k, i) => [k, c.codes[i], c.nums[3 * i + 1]] as const);
  const sorted = (c: CutRows) => rows(c).sort((a, b) => (a[0] < b[0] ? -1 : 1));

  it('leaves a cut whose moved keys still sort between their neighbours as it is', () => {
    const c = cutOf(5);
    const was = cutOfRows(c)!;
    c.keys[2] = 'k000021';
    const now = inKeyOrder(was, new Map([[2, 'k000021']]), c.nums)!;
    expect(rows(rowsOfCut(now))).toEqual(rows(c));
  });

  it('moves each entry whose new key passes a neighbour, with its code and numbers, as a sort would', () => {
    const rnd = prng(7);
    for (let round = 0; round < 300; round++) {
      const c = cutOf(1 + rnd.int(30));
      const was = cutOfRows(c)!;
      const changed = new Map<number, string>();
      for (let t = 1 + rnd.int(4); t > 0; t--) {
        const n = rnd.int(c.keys.length);
        // Now and then a key longer than every slot (the column widens).
        const key = `k${String(rnd.int(400)).padStart(6, '0')}x${n}${rnd.int(10) ? '' : 'y'.repeat(40)}`;
        c.keys[n] = key;
        changed.set(n, key);
      }
      const want = sorted(c);
      const now = rowsOfCut(inKeyOrder(was, changed, c.nums)!);
      expect(rows(now), `round ${round}`).toEqual(want);
      expect(now.nums.filter((_, j) => j % 3 === 2)).toEqual(Float64Array.from(want.map((w) => 1000 + w[2])));
    }
  });

  it('keeps no key that UTF-8 would change', () => {
    expect(inKeyOrder(cutOfRows(cutOf(3))!, new Map([[1, 'k\udc00']]), cutOf(3).nums)).toBeNull();
  });
});
