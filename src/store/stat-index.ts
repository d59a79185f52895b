import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { Hash128 } from '../core/hash128.js';
import { writeCache } from './cache-file.js';
import { alignedView } from './aligned.js';
import { contentHash } from './graph-entry.js';

/**
 * A snapshot of one agent's work folder as the graph cache last read it: the file names (one string,
 * in listing order), four stat numbers per file (inode, size, mtime, ctime), the content hash of what
 * the frontier reads from each file but its title and priority, and the hashes of those two
 * (graph-index.ts). It lets a call that finds a few files changed (a progress note) re-read only
 * those files and compute the new graph digest without loading the graph cache: unchanged numbers
 * mean unchanged content, by the same argument as the file keys (graph-index.ts). A racy file is stored with NaN numbers, which equal nothing, so it is always read
 * again. The snapshot is written whole, by temp file + rename, so a reader never sees a file's new
 * numbers with its old hash.
 *
 * The hashes are computed by one build of holon (graph-index.ts), so the snapshot carries that build's
 * stamp and a reader of another build (an old watcher still running, a newer CLI) ignores it.
 *
 * The mark says which index keeper vouches for the numbers (kept-listing.ts): `EPOCH:GEN`, the keeper's
 * generation when it answered before the files were listed, or '' when they were listed without one.
 *
 * The digest names the names and numbers, the part of the frontier's fingerprint a listing gives
 * (frontier-cache.ts, Listing.part): listingDigest of them all, or chainedDigest of the snapshot they
 * were patched from. A listing rebuilt from the snapshot with no file stat'ed again has exactly these
 * names and numbers, so its part is read here instead of hashing megabytes again. Where a number is
 * NaN, the digest may name any numbers there (a listing's, stored as NaN because racy): a listing
 * rebuilt from the snapshot stats those files again, and they count as moved (chainedDigest), so
 * what a digest chained from it names never depends on them. '' when not known.
 *
 * The names' signature (namesSig) is what the frontier's title index checks the names by
 * (frontier-titles.ts); stored here, it is copied with the names, and a patched frontier hashes no
 * 700 kB of names (nor loads node:crypto to do it).
 *
 * Layout (little-endian): u32 magic, u32 count, u32 byte length of the names, u32 byte length of the
 * stamp, u32 byte length of the mark, the writer's stamp (UTF-8), the mark (UTF-8), the digest (40
 * bytes, hex, or spaces), the names' signature (16 bytes, digits, or spaces), the names (UTF-8,
 * '\n' between them), padding to 8 bytes, count*4 f64 numbers, count f64 hashes, count f64 title hashes,
 * count f64 priority hashes, the three sums (f64), and count + 1 u32: where each name starts in the
 * names (as a string's index; the last, its length + 1).
 */

// 'HOL9': the names in readdir's order (a HOL8 snapshot could have added names at its end, which a
// keeper's listing then kept); HOL8 the layout with where each name starts (HOL7 had the names' signature, HOL6 the listing digest, HOL5 priority hashes,
// HOL4 title hashes, HOL3 the keeper's mark, HOL2 the stamp only, HOL1 neither: all are foreign).
const MAGIC = 0x484f4c39;
const DIGEST = 40;
const SIG = 16;
const PER_FILE = 7;
const SUMS = 3;
const FIXED = 20;

export interface StatIndex {
  names: string;
  count: number;
  stats: Float64Array;
  hashes: Float64Array;
  /** Each file's title hash (0: none), apart from `hashes` so that a new title leaves the digest as it was. */
  titles: Float64Array;
  /** Each file's priority hash (0: a done item, whose priority nothing reads), apart from `hashes` too. */
  prios: Float64Array;
  /**
   * The sums (modulo 2^52, graph-index.ts) of `hashes`, `titles` and `prios`: the digest, and what
   * tells the frontier no title or priority changed, without a loop over every file. Kept by whoever
   * changes the arrays (graph-index.ts), stored with them.
   */
  sums: Float64Array;
  /** `EPOCH:GEN` of the index keeper that vouches for `stats`, or ''. */
  mark: string;
  /** What names `names` and `stats` (see above), as stored; set by writeStatIndex. */
  digest?: string;
  /** namesSig(names), as stored (set by writeStatIndex), or once computed (snapshotSig). */
  sig?: string;
  /**
   * Where each name starts in `of` (which must be `names`: a copy with other names does not carry
   * them), as read: a lookup of one name by position or a position by name is then no scan of the
   * string (work-listing.ts snapshotNames). Computed when a snapshot is written without them.
   */
  starts?: { of: string; at: Uint32Array };
  /**
   * The bytes it was read from (readStatIndex), whose numbers its arrays are views of: patched in place
   * (graph-index.ts), they hold the snapshot as it is now, and writeStatIndex writes them again with
   * the new digest and mark rather than building megabytes anew (fresh memory: store/aligned.ts).
   */
  read?: { buf: Buffer; names: string };
}

/** The snapshot's stored name starts, while they are its names'. */
export const startsOf = (idx: Pick<StatIndex, 'names' | 'starts'>): Uint32Array | undefined => (idx.starts?.of === idx.names ? idx.starts.at : undefined);

/** Where each of the names (one string, '\n' between them) starts, and its length + 1 last. */
export function nameStarts(names: string, count: number): Uint32Array {
  const at = new Uint32Array(count + 1);
  let from = 0;
  for (let i = 0; i < count; i++) {
    at[i] = from;
    from = names.indexOf('\n', from) + 1 || names.length + 1;
  }
  at[count] = names.length + 1;
  return at;
}

/**
 * A listing's part of the frontier's fingerprint: its names (one string) and its numbers as bytes,
 * hashed natively (SHA-1: at 50,000 files some 2 MB).
 */
export function listingDigest(names: string, stats: Float64Array): string {
  return createHash('sha1').update(names).update('\0').update(new Uint8Array(stats.buffer, stats.byteOffset, stats.byteLength)).digest('hex');
}

/**
 * The digest of a snapshot's names and numbers with the numbers at `looked` now those in `now` (the
 * stats of a listing rebuilt from it, kept-listing.ts): the snapshot's digest itself when none differs,
 * else a hash of it and of each position that differs with its new numbers, in position order. A
 * digest names one state of names and numbers (the snapshot's, by induction), and the differences
 * applied to it give one state: two states never share one. The same state reached another way may
 * get another digest: then an answer is not reused by its fingerprint, and the graph digest's path
 * (ops/frontier.ts) finds it. Costs the few files stat'ed again, not the 2 MB a SHA-1 of 50,000 files
 * reads, and needs no node:crypto.
 */
export function chainedDigest(digest: string, looked: readonly number[], old: Float64Array, now: Float64Array): string {
  // (`looked` holds each position once: the names a keeper reported, as a set, or movedRecords.)
  const differs: number[] = [];
  for (const i of looked) {
    const j = 4 * i;
    if (old[j] !== now[j] || old[j + 1] !== now[j + 1] || old[j + 2] !== now[j + 2] || old[j + 3] !== now[j + 3]) differs.push(i);
  }
  if (!differs.length) return digest;
  // In position order: a keeper reports the files in the order their events came.
  differs.sort((a, b) => a - b);
  const h = new Hash128().update(digest);
  for (const i of differs) h.update(`${i}:${now[4 * i]}:${now[4 * i + 1]}:${now[4 * i + 2]}:${now[4 * i + 3]}`);
  // 'c' and 32 hex digits: never a SHA-1's 40.
  return `c${h.digest()}`;
}

/** What the frontier's entry check reads of a snapshot (frontier-titles.ts): names, title and priority hashes. */
export type Titled = Pick<StatIndex, 'names' | 'titles' | 'prios' | 'sums' | 'sig'>;

/** A signature of a listing's names (one string, '\n' between them). */
export const namesSig = (names: string) => String(contentHash(names));

/** The signature of a snapshot's names: the stored one, else computed once. */
export const snapshotSig = (snap: Titled): string => (snap.sig ||= namesSig(snap.names));

const pad8 = (n: number) => (n + 7) & ~7;

/** Whether the head of `buf` (magic, lengths, stamp) is this layout's, written under `stamp`; its end. */
function headEnd(buf: Buffer, stamp: string): number | null {
  if (buf.length < FIXED || buf.readUInt32LE(0) !== MAGIC) return null;
  const len = buf.readUInt32LE(12);
  const want = Buffer.from(stamp, 'utf8');
  if (len !== want.length || buf.length < FIXED + len || !buf.subarray(FIXED, FIXED + len).equals(want)) return null;
  return FIXED + len;
}

/** Where a snapshot's parts are in `buf` (its head says), or null: another layout or stamp, or torn. */
function layout(buf: Buffer, stamp: string) {
  const stampEnd = headEnd(buf, stamp);
  if (stampEnd === null) return null;
  const count = buf.readUInt32LE(4);
  const namesLen = buf.readUInt32LE(8);
  const markEnd = stampEnd + buf.readUInt32LE(16);
  const head = markEnd + DIGEST + SIG;
  const at = pad8(head + namesLen);
  const startsAt = at + (count * PER_FILE + SUMS) * 8;
  return buf.length === startsAt + (count + 1) * 4 ? { count, namesLen, stampEnd, markEnd, head, at, startsAt } : null;
}

/** The snapshot at `path`, or null: none, torn, another layout, or written by a build with another stamp. */
export function readStatIndex(path: string, stamp: string): StatIndex | null {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return null;
  }
  const l = layout(buf, stamp);
  if (!l) return null;
  const { count, stampEnd, markEnd, head, at, startsAt } = l;
  const numbers = alignedView(Float64Array, buf, at, count * PER_FILE + SUMS);
  const starts = alignedView(Uint32Array, buf, startsAt, count + 1);
  const names = buf.toString('utf8', head, head + l.namesLen);
  if ((count > 0 && starts[0] !== 0) || starts[count] !== names.length + 1) return null;
  return {
    read: { buf, names },
    names, count, starts: { of: names, at: starts }, stats: numbers.subarray(0, count * 4), hashes: numbers.subarray(count * 4, count * 5),
    titles: numbers.subarray(count * 5, count * 6), prios: numbers.subarray(count * 6, count * 7), sums: numbers.subarray(count * 7), mark: buf.toString('utf8', stampEnd, markEnd),
    digest: buf.toString('latin1', markEnd, markEnd + DIGEST).trim(), sig: buf.toString('latin1', markEnd + DIGEST, head).trim(),
  };
}

/** A snapshot's head: magic, lengths, stamp, mark, digest (padded) and the names' signature (padded). */
function putHead(buf: Buffer, count: number, namesLen: number, stamp: Buffer, mark: Buffer, digest: string, sig: string): void {
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(count, 4);
  buf.writeUInt32LE(namesLen, 8);
  buf.writeUInt32LE(stamp.length, 12);
  buf.writeUInt32LE(mark.length, 16);
  stamp.copy(buf, FIXED);
  mark.copy(buf, FIXED + stamp.length);
  buf.write(digest.padEnd(DIGEST, ' '), FIXED + stamp.length + mark.length, DIGEST, 'latin1');
  buf.write(sig.padEnd(SIG, ' '), FIXED + stamp.length + mark.length + DIGEST, SIG, 'latin1');
}

/**
 * Writes a snapshot whole. `digest`: the digest of its names and numbers when the caller knows it (a
 * listing's part, of the same names and numbers but where the snapshot stores NaN); else it is
 * computed here.
 */
export function writeStatIndex(path: string, idx: StatIndex, stamp: string, tmpDir: string, digest?: string): void {
  const stats = idx.stats.subarray(0, idx.count * 4);
  const sum = digest ?? listingDigest(idx.names, stats);
  const st = Buffer.from(stamp, 'utf8');
  const mark = Buffer.from(idx.mark, 'utf8');
  const again = asRead(idx, stamp, mark);
  if (again) {
    // The bytes it was read from, its numbers patched in them already: a new head (the same lengths)
    // over the old one, and the whole written as it is.
    putHead(again, idx.count, again.readUInt32LE(8), st, mark, sum, snapshotSig(idx));
    writeCache(path, again, tmpDir);
    return;
  }
  const names = Buffer.from(idx.names, 'utf8');
  const head = FIXED + st.length + mark.length + DIGEST + SIG;
  const at = pad8(head + names.length);
  const startsAt = at + (idx.count * PER_FILE + SUMS) * 8;
  const starts = startsOf(idx) ?? nameStarts(idx.names, idx.count);
  const buf = Buffer.alloc(startsAt + (idx.count + 1) * 4);
  putHead(buf, idx.count, names.length, st, mark, sum, snapshotSig(idx));
  names.copy(buf, head);
  buf.set(new Uint8Array(idx.stats.buffer, idx.stats.byteOffset, idx.count * 32), at);
  buf.set(new Uint8Array(idx.hashes.buffer, idx.hashes.byteOffset, idx.count * 8), at + idx.count * 32);
  buf.set(new Uint8Array(idx.titles.buffer, idx.titles.byteOffset, idx.count * 8), at + idx.count * 40);
  buf.set(new Uint8Array(idx.prios.buffer, idx.prios.byteOffset, idx.count * 8), at + idx.count * 48);
  buf.set(new Uint8Array(idx.sums.buffer, idx.sums.byteOffset, SUMS * 8), at + idx.count * 56);
  buf.set(new Uint8Array(starts.buffer, starts.byteOffset, (idx.count + 1) * 4), startsAt);
  writeCache(path, buf, tmpDir);
}

/** The bytes of NaN as this build stores it (putStat, quickDigest: the literal). */
const NAN_BYTES = Buffer.from(new Float64Array([NaN]).buffer);

/**
 * The files whose first number is NaN (racy, hard-linked, irregular: stat'ed on every call), in
 * order, without a loop over every file: such a loop, at 50,000 files, made V8 compile it on the
 * spot (on-stack replacement), a cost of several ms each call that only a few files called for.
 * The NaNs are found by their bytes; any other NaN (a file not of this build's making) leaves one the
 * search did not clear, and then every file is looked at.
 */
export function nanFiles(stats: Float64Array): number[] {
  if (!stats.includes(NaN)) return [];
  const bytes = Buffer.from(stats.buffer, stats.byteOffset, stats.byteLength);
  // In order, since the search goes forward: a file with several NaNs is met in a row.
  const found: number[] = [];
  // Each NaN found is cleared in place for the check below, and put back after it: a copy of the
  // numbers to clear them in (1.6 MB at 50,000 files) cost more, in fresh memory, than the search.
  const cleared: number[] = [];
  let other: boolean;
  try {
    for (let at = bytes.indexOf(NAN_BYTES); at >= 0; at = bytes.indexOf(NAN_BYTES, at + 1)) {
      if (at % 8) continue;
      stats[at / 8] = 0;
      cleared.push(at);
      const i = Math.floor(at / 32);
      if (found[found.length - 1] !== i) found.push(i);
    }
    other = stats.includes(NaN);
  } finally {
    for (const at of cleared) bytes.set(NAN_BYTES, at);
  }
  if (other) {
    const all: number[] = [];
    for (let i = 0; 4 * i < stats.length; i++) if (Number.isNaN(stats[4 * i])) all.push(i);
    return all;
  }
  return found.filter((i) => Number.isNaN(stats[4 * i]));
}

/**
 * The bytes `idx` was read from, where they can be written again as its snapshot: the same stamp,
 * names and count, a mark of the same length, and every array still the view readStatIndex made (a
 * snapshot built anew, or given other arrays, is written from them).
 */
function asRead(idx: StatIndex, stamp: string, mark: Buffer): Buffer | null {
  const r = idx.read;
  const l = r && r.names === idx.names ? layout(r.buf, stamp) : null;
  if (!r || !l || l.count !== idx.count || l.markEnd - l.stampEnd !== mark.length) return null;
  const n = idx.count;
  const at = r.buf.byteOffset + l.at;
  const views: Array<[Float64Array | Uint32Array, number, number]> = [
    [idx.stats, at, 4 * n], [idx.hashes, at + 32 * n, n], [idx.titles, at + 40 * n, n], [idx.prios, at + 48 * n, n], [idx.sums, at + 56 * n, SUMS],
  ];
  const starts = startsOf(idx);
  if (starts) views.push([starts, r.buf.byteOffset + l.startsAt, n + 1]);
  return views.every(([a, from, length]) => a.buffer === r.buf.buffer && a.byteOffset === from && a.length === length) ? r.buf : null;
}

/** Whether `path` is a snapshot of this layout written under `stamp` (reads only its head). */
export function statIndexStamped(path: string, stamp: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const size = FIXED + Buffer.byteLength(stamp, 'utf8');
    const head = Buffer.alloc(size);
    return readSync(fd, head, 0, size, 0) === size && headEnd(head, stamp) === size;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
