import { closeSync, openSync, readSync } from 'node:fs';
import { writeCache } from './cache-file.js';
import { contentHash } from './graph-entry.js';
import { nanFiles } from './nan-files.js';
import { listingDigest } from './listing-digest.js';
import { bitBytes, DIGEST, FIXED, headEnd, layout, MAGIC, pad8, PER_FILE, SIG, SUMS } from './stat-index-layout.js';
import { startsOf, unreadBytes } from './stat-index-read.js';

export { bytesNames, prioOf, readStatIndex, rowOf, startsOf, statsOf, titleOf } from './stat-index-read.js';

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
 * count f64 priority hashes, the three sums (f64), count + 1 u32: where each name starts in the
 * names (as a string's index; the last, its length + 1), and a bit per file (count / 8 bytes, rounded
 * up, the first file in the low bit of the first byte): its numbers are stored as NaN (nanFiles).
 *
 * The seven numbers per file (four stat numbers, three hashes), 2.8 MB of the 3.7 MB at 50,000 files,
 * are not read with the rest: a call the index keeper tells of a file or two reads those files'
 * numbers alone (statsOf, rowOf), as does a patch of the answer for the entries it moves (titleOf,
 * prioOf), and the whole block only when something needs them all (the arrays' getters). Both read
 * from the file descriptor the rest was read through, kept open until then: the snapshot is replaced
 * by rename, never written in place, so that descriptor reads the same bytes as the first read did,
 * whatever was stored since. The bits say which files a rebuilt listing must stat again without
 * looking at every number.
 */

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
  read?: { buf: Buffer; names: string; as?: StatIndex };
  /** As read: a bit per file whose numbers are stored as NaN (see the layout), kept by quickDigest's patches (setNanBit). */
  nanBits?: Uint8Array;
}

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

/** What the frontier's entry check reads of a snapshot (frontier-titles.ts): names, title and priority hashes. */
export type Titled = Pick<StatIndex, 'names' | 'titles' | 'prios' | 'sums' | 'sig'>;

/** A signature of a listing's names (one string, '\n' between them). */
export const namesSig = (names: string) => String(contentHash(names));

/** The signature of a snapshot's names: the stored one, else computed once. */
export const snapshotSig = (snap: Titled): string => (snap.sig ||= namesSig(snap.names));


/**
 * The files a snapshot stores with NaN numbers (racy, hard-linked, irregular: stat'ed on every call),
 * in order: from its bits where it was read (no look at its numbers), else nanFiles.
 */
export function nanFilesOf(idx: StatIndex): number[] {
  const bits = idx.nanBits;
  if (!bits) return nanFiles(idx.stats);
  const out: number[] = [];
  // (A byte loop: some 6 KB at 50,000 files.)
  for (let b = 0; b < bits.length; b++) {
    const x = bits[b];
    if (x) for (let k = 0; k < 8; k++) if (x & (1 << k)) out.push(8 * b + k);
  }
  return out;
}

/** Keeps a read snapshot's NaN bit of file i as its numbers are patched in place (quickDigest). */
export function setNanBit(idx: StatIndex, i: number, nan: boolean): void {
  const bits = idx.nanBits;
  if (!bits) return;
  if (nan) bits[i >> 3] |= 1 << (i & 7);
  else bits[i >> 3] &= ~(1 << (i & 7));
}

/** The NaN bits of `stats` into `bits` (zeroed first). */
function putNanBits(stats: Float64Array, bits: Uint8Array): void {
  bits.fill(0);
  for (const i of nanFiles(stats)) bits[i >> 3] |= 1 << (i & 7);
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
 * computed here. `markText`: the mark it is stored under, its own by default (given, not spread into
 * a copy: a copy's getters would decode the names of one read, 650 KB at 50,000 files, for nothing).
 */
export function writeStatIndex(path: string, idx: StatIndex, stamp: string, tmpDir: string, digest?: string, markText = idx.mark): void {
  if (digest !== undefined && writeUnread(path, idx, stamp, tmpDir, digest, markText)) return;
  const stats = idx.stats.subarray(0, idx.count * 4);
  const sum = digest ?? listingDigest(idx.names, stats);
  const st = Buffer.from(stamp, 'utf8');
  const mark = Buffer.from(markText, 'utf8');
  const again = asRead(idx, stamp, mark);
  if (again) {
    // The bytes it was read from, its numbers patched in them already: a new head (the same lengths)
    // over the old one, the NaN bits of the numbers as they are, and the whole written as it is.
    putHead(again, idx.count, again.readUInt32LE(8), st, mark, sum, snapshotSig(idx));
    putNanBits(stats, again.subarray(again.length - bitBytes(idx.count)));
    writeCache(path, again, tmpDir);
    return;
  }
  const names = Buffer.from(idx.names, 'utf8');
  const head = FIXED + st.length + mark.length + DIGEST + SIG;
  const at = pad8(head + names.length);
  const startsAt = at + (idx.count * PER_FILE + SUMS) * 8;
  const starts = startsOf(idx) ?? nameStarts(idx.names, idx.count);
  const bitsAt = startsAt + (idx.count + 1) * 4;
  const buf = Buffer.alloc(bitsAt + bitBytes(idx.count));
  putHead(buf, idx.count, names.length, st, mark, sum, snapshotSig(idx));
  names.copy(buf, head);
  buf.set(new Uint8Array(idx.stats.buffer, idx.stats.byteOffset, idx.count * 32), at);
  buf.set(new Uint8Array(idx.hashes.buffer, idx.hashes.byteOffset, idx.count * 8), at + idx.count * 32);
  buf.set(new Uint8Array(idx.titles.buffer, idx.titles.byteOffset, idx.count * 8), at + idx.count * 40);
  buf.set(new Uint8Array(idx.prios.buffer, idx.prios.byteOffset, idx.count * 8), at + idx.count * 48);
  buf.set(new Uint8Array(idx.sums.buffer, idx.sums.byteOffset, SUMS * 8), at + idx.count * 56);
  buf.set(new Uint8Array(starts.buffer, starts.byteOffset, (idx.count + 1) * 4), startsAt);
  putNanBits(stats, buf.subarray(bitsAt));
  writeCache(path, buf, tmpDir);
}

/**
 * A snapshot whose numbers were not read whole written again without reading them into memory: a new
 * head, the names as they were read, padded to the numbers (the mark's length may have changed), then
 * the rest as it is now (stat-index-read.ts unreadBytes: the numbers copied from its old file with the
 * few patched since put over them; the sums, name starts and NaN bits as read and patched in place).
 * At 50,000 files its numbers are 2.8 MB that a call told of one changed file by the index keeper
 * would otherwise read to write them again. False where it cannot (read whole, another stamp or layout).
 */
function writeUnread(path: string, idx: StatIndex, stamp: string, tmpDir: string, digest: string, markText: string): boolean {
  const r = unreadBytes(idx);
  const l = r && idx.read?.as === idx ? layout(r.buf, r.buf.length, stamp) : null;
  if (!r || !l || l.count !== idx.count || !idx.nanBits) return false;
  const st = Buffer.from(stamp, 'utf8');
  const mark = Buffer.from(markText, 'utf8');
  // The head anew, the names as read, padded to where the numbers start (the mark's length may have changed).
  const head = FIXED + st.length + mark.length + DIGEST + SIG;
  const top = Buffer.alloc(head);
  putHead(top, idx.count, l.namesLen, st, mark, digest, snapshotSig(idx));
  writeCache(path, (function* () {
    yield top;
    yield r.buf.subarray(l.head, l.head + l.namesLen);
    yield Buffer.alloc(pad8(head + l.namesLen) - head - l.namesLen);
    yield* r.chunks();
  })(), tmpDir);
  return true;
}

/**
 * The bytes `idx` was read from, where they can be written again as its snapshot: the same stamp,
 * names and count, a mark of the same length, and every array still the view readStatIndex made (a
 * snapshot built anew, or given other arrays, is written from them).
 */
function asRead(idx: StatIndex, stamp: string, mark: Buffer): Buffer | null {
  const r = idx.read;
  // The snapshot as read has the names of its bytes; anything else is compared.
  const l = r && (r.as === idx || r.names === idx.names) ? layout(r.buf, r.buf.length, stamp) : null;
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
