import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha1Hex, sha1HexJs, sha1HexNative } from '../../src/store/sha1.js';
import { chainedDigest as chainedRows, rowsOf } from '../../src/store/listing-digest.js';
import { movedRecords } from '../../src/store/work-listing.js';

/**
 * The content hashes (store/sha1.ts) come from JS for a process's first few texts and from node:crypto
 * after: both must give one digest for every text, or a file hashed by one would look changed to the other.
 */
describe('sha1Hex', () => {
  const texts = ['', 'a', 'abc', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'x'.repeat(1000), 'é ü 漢字 🙂', 'lone \ud800 high', 'lone \udc00 low', 'tail \ud83d', `---\nid: "w-1"\ntitle: "Task"\n---\n`];
  it('gives node:crypto\'s SHA-1 of the UTF-8 bytes, in JS and natively, lone surrogates too', () => {
    for (const t of texts) {
      const want = createHash('sha1').update(Buffer.from(t, 'utf8')).digest('hex');
      expect(sha1HexJs(t)).toBe(want);
      expect(sha1HexNative(t)).toBe(want);
      expect(sha1Hex(t)).toBe(want);
    }
  });

  it('pads every length right: each byte count around the 64-byte blocks, and texts of multibyte characters up to the longest hashed in JS', () => {
    for (let n = 0; n <= 200; n++) {
      const t = 'ab\u00e9'.repeat(n).slice(0, n);
      expect(sha1HexJs(t)).toBe(createHash('sha1').update(Buffer.from(t, 'utf8')).digest('hex'));
    }
    const long = '\u{1f642}\u6f22'.repeat(1365);
    expect(sha1HexJs(long)).toBe(createHash('sha1').update(Buffer.from(long, 'utf8')).digest('hex'));
  });

  it('stays the same past the texts it hashes in JS', () => {
    for (let i = 0; i < 600; i++) expect(sha1Hex(`text ${i}`)).toBe(createHash('sha1').update(`text ${i}`).digest('hex'));
  });
});

/** A listing's part of the frontier fingerprint, chained from its snapshot's digest (stat-index.ts). */
describe('chainedDigest', () => {
  const chainedDigest = (digest: string, looked: number[], old: Float64Array, now: Float64Array) => chainedRows(digest, looked, rowsOf(old), rowsOf(now));
  const old = Float64Array.of(1, 10, 100, 100, 2, 20, 200, 200, 3, 30, 300, 300);
  const moved = (i: number, by: number) => {
    const s = new Float64Array(old);
    s[4 * i + 2] += by;
    return s;
  };
  it('is the snapshot\'s digest where nothing stat\'ed again moved', () => {
    expect(chainedDigest('d0', [], old, old)).toBe('d0');
    expect(chainedDigest('d0', [0, 2], old, new Float64Array(old))).toBe('d0');
  });

  it('names the numbers that moved, whatever order the positions come in', () => {
    const now = moved(1, 5);
    const d = chainedDigest('d0', [1], old, now);
    expect(d).toMatch(/^c[0-9a-f]{32}$/);
    expect(chainedDigest('d0', [2, 1, 0], old, now)).toBe(d);
    expect(chainedDigest('d1', [1], old, now)).not.toBe(d);
    expect(chainedDigest('d0', [1], old, moved(1, 6))).not.toBe(d);
    expect(chainedDigest('d0', [2], old, moved(2, 5))).not.toBe(d);
  });

  it('counts a NaN of the snapshot (a racy file) as moved', () => {
    const racy = new Float64Array(old);
    racy.fill(NaN, 4, 8);
    expect(chainedDigest('d0', [1], racy, old)).not.toBe('d0');
  });
});

/** The files of a full listing whose numbers are not its snapshot's (work-listing.ts), found by halving. */
describe('movedRecords', () => {
  const stats = (n: number) => Float64Array.from({ length: 4 * n }, (_, i) => i * 1.5);
  it('finds each file whose numbers differ, in order, and none where all are the same', () => {
    const a = stats(1000);
    expect(movedRecords(a, new Float64Array(a), 10)).toEqual([]);
    const b = new Float64Array(a);
    for (const i of [0, 7, 500, 999]) b[4 * i + 3] += 1;
    b[4 * 7 + 1] += 1;
    expect(movedRecords(a, b, 10)).toEqual([0, 7, 500, 999]);
    expect(movedRecords(a, b, 3)).toBeNull();
    expect(movedRecords(a, stats(999), 10)).toBeNull();
    expect(movedRecords(new Float64Array(0), new Float64Array(0), 1)).toEqual([]);
  });
});
