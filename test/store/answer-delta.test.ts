import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deltaText, isDelta, openBase, parseDelta, writeDelta, type StoredText } from '../../src/store/answer-delta.js';
import { fileText, partChunks, TextRange, type Part } from '../../src/store/answer-text.js';
import { tempDir } from '../helpers/cli.js';

/**
 * A patched answer stored as a delta of the answer it was patched from (store/answer-delta.ts): its
 * text, composed from its base, must be the parts it was made of, byte for byte, through every reader
 * (bytes, into, parts, all); a delta of a delta refers to the same base; and a base that is not the
 * delta's any more, a torn delta, or a patch past the limits is never read as an answer.
 */

/** A stored answer's text file under `token` (and where it lies: its own file). */
function storedFile(path: string, token: string, text: string, known = 0): StoredText {
  writeFileSync(path, `${token}\n${text}`);
  const head = readFileSync(path).subarray(0, token.length + 1 + known);
  const t = fileText(path, token, head)!;
  return Object.assign(t, { stored: { token, path, base: false, segments: (a: number, b: number) => [[a, b] as const] } });
}

/** The delta at `path` over the base at `basePath`, opened as a reader would. */
function readDelta(path: string, token: string, basePath: string): StoredText | null {
  const buf = readFileSync(path);
  if (buf.toString('latin1', 0, token.length + 1) !== `${token}\n`) return null;
  const d = parseDelta(buf.subarray(token.length + 1));
  const b = d && openBase(basePath, d.base);
  return d && b ? deltaText(d, basePath, b) : null;
}

/** A folder with a temp folder, and where a text file and its base go. */
function files() {
  const dir = tempDir();
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  return { dir, tmp, path: join(dir, 'a.txt'), basePath: join(dir, 'a.base.txt') };
}

const joined = (parts: Part[], src: StoredText) => Buffer.concat(Array.from(partChunks(parts, src), (b) => Buffer.from(b))).toString();

describe('an answer stored as a delta of the answer it was patched from', () => {
  it('reads back as the parts it was made of, and a delta of it refers to the same base', () => {
    const { tmp, path, basePath } = files();
    // 200 KB of text, its first 1,000 bytes read (a patch's parts of them are views of that memory).
    const text = Array.from({ length: 4000 }, (_, i) => `entry ${String(i).padStart(5, '0')} ${'x'.repeat(40)}\n`).join('');
    const src = storedFile(path, 'aaaa', text, 1000);
    const parts: Part[] = [...src.parts(0, 2000), Buffer.from('NEW ENTRY\n'), new TextRange(2100, 100_000), Buffer.from('TWO\n'), new TextRange(100_050, text.length)];
    const want = joined(parts, src);
    expect(writeDelta(path, basePath, tmp, 'bbbb', parts, src)).toBe(true);
    src.close();
    // The text file is the delta (kilobytes), the base the answer's own file (its inode).
    expect(statSync(path).size).toBeLessThan(1000);
    expect(readFileSync(basePath, 'latin1').startsWith('aaaa\n')).toBe(true);
    expect(isDelta(readFileSync(path).subarray(5))).toBe(true);
    const d = readDelta(path, 'bbbb', basePath)!;
    expect(d.length).toBe(Buffer.byteLength(want));
    expect(d.all().toString()).toBe(want);
    // Every reader, at ranges across segments.
    const fresh = readDelta(path, 'bbbb', basePath)!;
    for (const [a, b] of [[0, 10], [1995, 2015], [2005, 2200], [99_000, 99_100], [want.length - 10, want.length + 5]]) {
      expect(fresh.bytes(a, b).toString(), `${a}-${b}`).toBe(want.slice(a, b));
      expect(fresh.into(Buffer.alloc(b - a + 10), a, b).toString()).toBe(want.slice(a, b));
    }
    expect(joined([new TextRange(0, fresh.length)], fresh)).toBe(want);
    // A delta of the delta: the same base, its new bytes carried over, nothing of the base copied.
    const again: Part[] = [new TextRange(0, 1500), Buffer.from('THIRD\n'), new TextRange(1500, fresh.length)];
    const want2 = joined(again, fresh);
    expect(writeDelta(path, basePath, tmp, 'cccc', again, fresh)).toBe(true);
    fresh.close();
    d.close();
    expect(readFileSync(basePath, 'latin1').startsWith('aaaa\n')).toBe(true);
    const d2 = readDelta(path, 'cccc', basePath)!;
    expect(d2.all().toString()).toBe(want2);
    expect(parseDelta(readFileSync(path).subarray(5))!.segs.filter(Buffer.isBuffer).reduce((n, b) => n + b.length, 0)).toBe('NEW ENTRY\nTWO\nTHIRD\n'.length);
    d2.close();
  });

  it('is not read where its base is another answer, where it is torn, and is not written past its limits', () => {
    const { tmp, path, basePath } = files();
    const text = 'y'.repeat(50_000);
    const src = storedFile(path, 'aaaa', text);
    expect(writeDelta(path, basePath, tmp, 'bbbb', [new TextRange(0, 10), Buffer.from('z'), new TextRange(10, text.length)], src)).toBe(true);
    src.close();
    const delta = readFileSync(path);
    // Another answer's first delta made its own file the base: this delta is not read.
    writeFileSync(basePath, `dddd\n${text}`);
    expect(readDelta(path, 'bbbb', basePath)).toBe(null);
    // Torn: cut anywhere, it does not parse.
    for (const cut of [8, 20, delta.length - 1]) expect(parseDelta(delta.subarray(5, cut))).toBe(null);
    // A segment past its base's end: not read.
    writeFileSync(basePath, 'aaaa\nshort');
    expect(readDelta(path, 'bbbb', basePath)).toBe(null);
    // Past its limits (here 300 KB of new bytes): written whole by the caller.
    const src2 = storedFile(path, 'eeee', text);
    expect(writeDelta(path, basePath, tmp, 'ffff', [new TextRange(0, 10), Buffer.alloc(300 * 1024, 'n')], src2)).toBe(false);
    // Another answer stored over the text since it was read: no delta, and the base there stays.
    writeFileSync(basePath, `gggg\n${text}`);
    const src3 = storedFile(path, 'hhhh', text);
    writeFileSync(`${path}.new`, `iiii\n${text}`);
    renameSync(`${path}.new`, path);
    expect(writeDelta(path, basePath, tmp, 'jjjj', [new TextRange(0, 10)], src3)).toBe(false);
    src3.close();
    expect(readFileSync(basePath, 'latin1').startsWith('gggg\n')).toBe(true);
    // Its own file the base already (two calls made the same first delta): no second name left behind.
    const src4 = storedFile(path, 'kkkk', text);
    linkSync(path, `${basePath}.new`);
    renameSync(`${basePath}.new`, basePath);
    expect(writeDelta(path, basePath, tmp, 'llll', [new TextRange(0, 10), Buffer.from('z')], src4)).toBe(true);
    src4.close();
    expect(readdirSync(tmp)).toEqual([]);
    writeFileSync(path, `eeee\n${text}`);
    // And a text that does not say where it lies (one held in memory only) is never a delta.
    const { stored: _, ...plain } = src2;
    expect(writeDelta(path, basePath, tmp, 'ffff', [new TextRange(0, 10)], plain as StoredText)).toBe(false);
    src2.close();
    expect(readFileSync(path, 'latin1').startsWith('eeee\n')).toBe(true);
  });
});
