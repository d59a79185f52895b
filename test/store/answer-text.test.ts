import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferText, fileText, partChunks, TextRange, type Part } from '../../src/store/answer-text.js';
import { tempDir } from '../helpers/cli.js';

/**
 * A stored answer's text read where it is used (store/answer-text.ts): what was read of the file's
 * start, small reads past it, and the parts of a new answer as views or ranges of the old file,
 * copied through one buffer when they are written.
 */
const TOKEN = 'abcd1234';
const text = Buffer.from(Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));

function stored(): { path: string; head: Buffer } {
  const path = join(tempDir(), 'frontier.txt');
  const file = Buffer.concat([Buffer.from(`${TOKEN}\n`), text]);
  writeFileSync(path, file);
  return { path, head: file.subarray(0, 4096) };
}

const joined = (parts: Iterable<Uint8Array>) => Buffer.concat(Array.from(parts, (p) => Buffer.from(p)));

describe('an answer read where it is used', () => {
  it('gives its bytes from what was read, and past that from its file', () => {
    const { path, head } = stored();
    const t = fileText(path, TOKEN, head)!;
    expect(t.length).toBe(text.length);
    expect(t.bytes(10, 20).equals(text.subarray(10, 20))).toBe(true);
    expect(t.bytes(4000, 4200).equals(text.subarray(4000, 4200))).toBe(true);
    expect(t.bytes(150_000, 150_010).equals(text.subarray(150_000, 150_010))).toBe(true);
    // Clipped to the text.
    expect(t.bytes(text.length - 3, text.length + 10).equals(text.subarray(text.length - 3))).toBe(true);
    t.close();
  });

  it('is not the answer a header names when its token line is another', () => {
    const { path, head } = stored();
    expect(fileText(path, 'other', head)).toBeNull();
    // A file stored over it since the start was read: another token line.
    writeFileSync(path, `ffff0000\n${text.toString()}`);
    expect(fileText(path, TOKEN, head)).toBeNull();
  });

  it('makes the parts of a new answer from ranges of its file, copied in chunks, whatever is stored over it meanwhile', () => {
    const { path, head } = stored();
    const t = fileText(path, TOKEN, head)!;
    const parts: Part[] = [...t.parts(0, 100), Buffer.from('NEW'), ...t.parts(100, 3000), ...t.parts(5000, text.length)];
    // Within what was read: views; past it, a range.
    expect(parts.filter((p) => p instanceof TextRange).map((p) => [(p as TextRange).from, (p as TextRange).to])).toEqual([[5000, text.length]]);
    // One that starts in what was read and ends past it: a view, then a range.
    expect(t.parts(4000, 6000).map((p) => (p instanceof TextRange ? [p.from, p.to] : p.length))).toEqual([4096 - TOKEN.length - 1 - 4000, [4096 - TOKEN.length - 1, 6000]]);
    // The file replaced by a rename (as every store does): the parts still copy the answer they were made of.
    const other = join(tempDir(), 'other.txt');
    writeFileSync(other, 'x'.repeat(300_000));
    renameSync(other, path);
    const want = Buffer.concat([text.subarray(0, 100), Buffer.from('NEW'), text.subarray(100, 3000), text.subarray(5000)]);
    // Each chunk is valid only until the next: copied as they come.
    expect(joined(partChunks(parts, t)).equals(want)).toBe(true);
    // Read whole, it gives the same.
    expect(t.all().equals(text)).toBe(true);
    expect(joined(partChunks(parts, t)).equals(want)).toBe(true);
    t.close();
  });

  it('held whole in memory, gives views and no ranges', () => {
    const t = bufferText(text);
    expect(t.parts(5, 70_000).every((p) => p instanceof Buffer)).toBe(true);
    expect(joined(partChunks(t.parts(5, 70_000), t)).equals(text.subarray(5, 70_000))).toBe(true);
  });
});
