import { readFileSync } from 'node:fs';
import { writeCache } from './cache-file.js';

/**
 * A snapshot of one agent's work folder as the graph cache last read it: the file names (one string,
 * in listing order), four stat numbers per file (inode, size, mtime, ctime) and the content hash of
 * what the frontier reads from each file (graph-index.ts). It lets a call that finds a few files
 * changed (a progress note) re-read only those files and compute the new graph digest without loading
 * the graph cache: unchanged numbers mean unchanged content, by the same argument as the file keys
 * (graph-index.ts). A racy file is stored with NaN numbers, which equal nothing, so it is always read
 * again. The snapshot is written whole, by temp file + rename, so a reader never sees a file's new
 * numbers with its old hash.
 *
 * Layout (little-endian): u32 magic, u32 count, u32 byte length of the names, the names (UTF-8, '\n'
 * between them), padding to 8 bytes, count*4 f64 numbers, count f64 hashes.
 */

const MAGIC = 0x484f4c31;

export interface StatIndex {
  names: string;
  count: number;
  stats: Float64Array;
  hashes: Float64Array;
}

const pad8 = (n: number) => (n + 7) & ~7;

export function readStatIndex(path: string): StatIndex | null {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return null;
  }
  if (buf.length < 12 || buf.readUInt32LE(0) !== MAGIC) return null;
  const count = buf.readUInt32LE(4);
  const namesLen = buf.readUInt32LE(8);
  const at = pad8(12 + namesLen);
  if (buf.length !== at + count * 40) return null;
  // Copied out: a Float64Array view needs an 8-aligned offset into the buffer's memory.
  const numbers = new Float64Array(count * 5);
  new Uint8Array(numbers.buffer).set(buf.subarray(at, at + count * 40));
  return { names: buf.toString('utf8', 12, 12 + namesLen), count, stats: numbers.subarray(0, count * 4), hashes: numbers.subarray(count * 4) };
}

export function writeStatIndex(path: string, idx: StatIndex, tmpDir: string): void {
  const names = Buffer.from(idx.names, 'utf8');
  const at = pad8(12 + names.length);
  const buf = Buffer.alloc(at + idx.count * 40);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(idx.count, 4);
  buf.writeUInt32LE(names.length, 8);
  names.copy(buf, 12);
  buf.set(new Uint8Array(idx.stats.buffer, idx.stats.byteOffset, idx.count * 32), at);
  buf.set(new Uint8Array(idx.hashes.buffer, idx.hashes.byteOffset, idx.count * 8), at + idx.count * 32);
  writeCache(path, buf, tmpDir);
}
