import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { writeCache } from './cache-file.js';
import { alignedView } from './aligned.js';
import { contentHash } from './graph-entry.js';
import { trace } from './trace.js';
import { nanFiles } from './nan-files.js';
import { listingDigest } from './listing-digest.js';

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

// 'HOLA': the NaN bits; HOL9 the names in readdir's order (a HOL8 snapshot could have added names at its
// end, which a keeper's listing then kept); HOL8 the layout with where each name starts (HOL7 had the
// names' signature, HOL6 the listing digest, HOL5 priority hashes, HOL4 title hashes, HOL3 the
// keeper's mark, HOL2 the stamp only, HOL1 neither: all are foreign).
const MAGIC = 0x484f4c41;
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
  /** As read: a bit per file whose numbers are stored as NaN (see the layout), kept by quickDigest's patches (setNanBit). */
  nanBits?: Uint8Array;
}

/**
 * Snapshots as read whose names are ASCII (all holon's ids are) and not decoded yet: the bytes they are
 * in. The names are 650 KB at 50,000 files, and a call the index keeper tells of a file or two needs a
 * few of them (bytesNames), not a string of them all (`names`, decoded on first use).
 */
const undecoded = new WeakMap<object, { buf: Buffer; from: number }>();

/** The snapshot's stored name starts, while they are its names'. */
export const startsOf = (idx: Pick<StatIndex, 'names' | 'starts'>): Uint32Array | undefined => (undecoded.has(idx) || idx.starts?.of === idx.names ? idx.starts?.at : undefined);

/**
 * The names of a snapshot as read, without decoding them all while they are ASCII (`undecoded`): the
 * name at a position, and the position of a name, from their bytes; null where they are decoded, or
 * not ASCII (then work-listing.ts snapshotNames over the string).
 */
export function bytesNames(idx: StatIndex): { at(i: number): string; indexOf(name: string): number } | null {
  const b = undecoded.get(idx);
  const starts = idx.starts?.at;
  if (!b || !starts) return null;
  const { buf, from } = b;
  const count = idx.count;
  const end = from + starts[count] - 1;
  return {
    // (Past the end: what the names split give there.)
    at: (i) => (i >= 0 && i < count ? buf.toString('latin1', from + starts[i], from + starts[i + 1] - 1) : idx.names.split('\n')[i]),
    indexOf(name) {
      // No ASCII name has a character past 0x7f, nor a newline.
      if (!name || /[^\x00-\x09\x0b-\x7f]/.test(name)) return -1;
      const line = Buffer.from(`\n${name}\n`, 'latin1');
      // A whole line: at the start, between two newlines, or at the end.
      let p = -1;
      if (end - from >= name.length && buf.toString('latin1', from, from + name.length) === name && (end - from === name.length || buf[from + name.length] === 10)) p = from;
      else {
        const q = buf.indexOf(line, from);
        if (q >= 0 && q + line.length <= end) p = q + 1;
        else if (end - from > name.length && buf[end - name.length - 1] === 10 && buf.toString('latin1', end - name.length, end) === name) p = end - name.length;
      }
      if (p < 0) return -1;
      // The line that starts there: a search of the starts.
      let lo = 0;
      let hi = count - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (from + starts[mid] <= p) lo = mid;
        else hi = mid - 1;
      }
      return from + starts[lo] === p ? lo : -1;
    },
  };
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

const pad8 = (n: number) => (n + 7) & ~7;

/** Whether the head of `buf` (magic, lengths, stamp) is this layout's, written under `stamp`; its end. */
function headEnd(buf: Buffer, stamp: string): number | null {
  if (buf.length < FIXED || buf.readUInt32LE(0) !== MAGIC) return null;
  const len = buf.readUInt32LE(12);
  const want = Buffer.from(stamp, 'utf8');
  if (len !== want.length || buf.length < FIXED + len || !buf.subarray(FIXED, FIXED + len).equals(want)) return null;
  return FIXED + len;
}

/** The bytes of the NaN bits of `count` files. */
const bitBytes = (count: number) => (count + 7) >> 3;

/**
 * Where a snapshot's parts are in a file of `size` bytes whose first bytes are `buf` (at least up to
 * the names), or null: another layout or stamp, or torn.
 */
function layout(buf: Buffer, size: number, stamp: string) {
  const stampEnd = headEnd(buf, stamp);
  if (stampEnd === null || buf.length < FIXED) return null;
  const count = buf.readUInt32LE(4);
  const namesLen = buf.readUInt32LE(8);
  const markEnd = stampEnd + buf.readUInt32LE(16);
  const head = markEnd + DIGEST + SIG;
  const at = pad8(head + namesLen);
  const startsAt = at + (count * PER_FILE + SUMS) * 8;
  const bitsAt = startsAt + (count + 1) * 4;
  return size === bitsAt + bitBytes(count) ? { count, namesLen, stampEnd, markEnd, head, at, startsAt, bitsAt } : null;
}

/** Reads `length` bytes at `position` of `fd` into `buf` at `offset`; false at the end of the file first. */
function readFully(fd: number, buf: Uint8Array, offset: number, length: number, position: number): boolean {
  while (length > 0) {
    const n = readSync(fd, buf, offset, length, position);
    if (n === 0) return false;
    offset += n;
    position += n;
    length -= n;
  }
  return true;
}

/**
 * A snapshot's numbers not read yet (its four stat numbers, hash, title and priority hashes per file):
 * the open file they are in, where, and the ones read alone so far.
 */
interface Unread {
  fd: number;
  /** Where the numbers start in the file (and in the buffer that mirrors it). */
  at: number;
  /** The buffer's bytes from `at`, views of which are `numbers` and the snapshot's arrays. */
  bytes: Uint8Array;
  numbers: Float64Array;
  /** The numbers read alone (their index in `numbers`), which may have been patched in place since. */
  alone: Set<number>;
}

const unread = new WeakMap<object, Unread>();
/** Snapshots whose file is held open; past OPEN_MAX (a home of many agents) a snapshot is read whole at once. */
let open = 0;
const OPEN_MAX = 64;
/** A snapshot dropped with its numbers unread closes its file then (a long-running watcher reads many). */
const closer = new FinalizationRegistry<number>((fd) => {
  open--;
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

function closeUnread(idx: object, u: Unread): void {
  unread.delete(idx);
  open--;
  closer.unregister(u);
  try {
    closeSync(u.fd);
  } catch {
    // Nothing to do: it was read.
  }
}

/** Reads a snapshot's numbers whole into its buffer, keeping those read alone (which may be patched). */
function readWhole(idx: object, u: Unread, count: number): void {
  const kept = [...u.alone].map((e) => [e, u.numbers[e]] as const);
  trace(`snapshot: ${count} files' numbers read whole`);
  try {
    if (!readFully(u.fd, u.bytes, 0, u.bytes.length, u.at)) throw new Error('the snapshot file ended early');
  } finally {
    closeUnread(idx, u);
  }
  for (const [e, v] of kept) u.numbers[e] = v;
}

/** Numbers [e, e + n) of an unread snapshot of `count` files, read where they were not yet. */
function readAlone(u: Unread, count: number, e: number, n: number): void {
  if (u.alone.has(e)) return;
  if (!(e >= 0 && e + n <= 7 * count) || !readFully(u.fd, u.bytes, 8 * e, 8 * n, u.at + 8 * e)) throw new Error(`no file ${e} in the snapshot`);
  for (let k = 0; k < n; k++) u.alone.add(e + k);
}

/**
 * File i's four numbers in a snapshot, a view (written through: graph-index.ts quickDigest patches
 * them), reading only them where the snapshot's numbers were not read whole.
 */
export function statsOf(idx: StatIndex, i: number): Float64Array {
  const u = unread.get(idx);
  if (!u) return idx.stats.subarray(4 * i, 4 * i + 4);
  if (!(i >= 0 && i < idx.count)) throw new Error(`no file ${i} in the snapshot`);
  readAlone(u, idx.count, 4 * i, 4);
  return u.numbers.subarray(4 * i, 4 * i + 4);
}

/**
 * The snapshot's arrays where file i's numbers are read (only they, where the snapshot's numbers were
 * not read whole: the caller reads and patches position i alone).
 */
export function rowOf(idx: StatIndex, i: number): Pick<StatIndex, 'stats' | 'hashes' | 'titles' | 'prios'> {
  const u = unread.get(idx);
  if (!u) return idx;
  const n = idx.count;
  if (!(i >= 0 && i < n)) throw new Error(`no file ${i} in the snapshot`);
  readAlone(u, n, 4 * i, 4);
  for (const a of [4, 5, 6]) readAlone(u, n, a * n + i, 1);
  const x = u.numbers;
  return { stats: x.subarray(0, 4 * n), hashes: x.subarray(4 * n, 5 * n), titles: x.subarray(5 * n, 6 * n), prios: x.subarray(6 * n, 7 * n) };
}

/** File i's title hash in a snapshot, read alone where its numbers were not read whole. */
export const titleOf = (snap: Titled, i: number): number => hashAlone(snap, 5, i) ?? snap.titles[i];

/** File i's priority hash in a snapshot, read alone where its numbers were not read whole. */
export const prioOf = (snap: Titled, i: number): number => hashAlone(snap, 6, i) ?? snap.prios[i];

/** Hash array `a` (5: titles, 6: priorities) at file i of a snapshot whose numbers were not read whole; else undefined. */
function hashAlone(snap: Titled, a: number, i: number): number | undefined {
  const u = unread.get(snap);
  const n = u ? u.numbers.length / PER_FILE : 0;
  if (!u || !(Number.isInteger(i) && i >= 0 && i < n)) return undefined;
  readAlone(u, n, a * n + i, 1);
  return u.numbers[a * n + i];
}

/**
 * The snapshot at `path`, or null: none, torn, another layout, or written by a build with another
 * stamp. Its numbers are read on first use (see the layout): its arrays read them all, statsOf,
 * rowOf, titleOf and prioOf one file's.
 */
export function readStatIndex(path: string, stamp: string): StatIndex | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  let keep = false;
  try {
    const size = fstatSync(fd).size;
    // The head is some 150 bytes (the stamp and the mark are short); a longer one is read again below.
    let first = Buffer.allocUnsafe(Math.min(size, 512));
    if (!readFully(fd, first, 0, first.length, 0)) return null;
    const end = FIXED + (first.length >= FIXED ? first.readUInt32LE(12) + first.readUInt32LE(16) : 0) + DIGEST + SIG;
    if (end > first.length && end <= size) {
      first = Buffer.allocUnsafe(end);
      if (!readFully(fd, first, 0, end, 0)) return null;
    }
    const l = layout(first, size, stamp);
    if (!l) return null;
    const { count, stampEnd, markEnd, head, at, startsAt } = l;
    // All of it in one buffer, as the file is, but the numbers (read below, or when first needed):
    // memory not written is not touched, so it costs no page fault.
    const buf = Buffer.allocUnsafeSlow(size);
    const numbersEnd = at + count * 8 * PER_FILE;
    if (!readFully(fd, buf, 0, at, 0) || !readFully(fd, buf, numbersEnd, size - numbersEnd, numbersEnd)) return null;
    const numbers = alignedView(Float64Array, buf, at, count * PER_FILE + SUMS);
    const starts = alignedView(Uint32Array, buf, startsAt, count + 1);
    // ASCII names (as many bytes as the starts count characters) are decoded on first use.
    const ascii = starts[count] === l.namesLen + 1 && isAscii(buf.subarray(head, head + l.namesLen));
    let names = ascii ? '' : buf.toString('utf8', head, head + l.namesLen);
    if ((count > 0 && starts[0] !== 0) || (!ascii && starts[count] !== names.length + 1)) return null;
    const decoded = (self: object) => {
      if (undecoded.delete(self) || (ascii && !names && count)) {
        trace(`snapshot: ${count} names decoded`);
        names = buf.toString('latin1', head, head + l.namesLen);
      }
      return names;
    };
    const arrays = { stats: numbers.subarray(0, count * 4), hashes: numbers.subarray(count * 4, count * 5), titles: numbers.subarray(count * 5, count * 6), prios: numbers.subarray(count * 6, count * 7) };
    /** The arrays, their numbers read whole first if they were not. */
    const whole = (self: object) => {
      const u = unread.get(self);
      if (u) readWhole(self, u, count);
      return arrays;
    };
    const idx: StatIndex = {
      read: {
        buf,
        get names() {
          return decoded(idx);
        },
      },
      get names() {
        return decoded(this);
      },
      count,
      starts: {
        get of() {
          return decoded(idx);
        },
        at: starts,
      },
      sums: numbers.subarray(count * 7), mark: buf.toString('utf8', stampEnd, markEnd),
      digest: buf.toString('latin1', markEnd, markEnd + DIGEST).trim(), sig: buf.toString('latin1', markEnd + DIGEST, head).trim(),
      nanBits: buf.subarray(l.bitsAt),
      get stats() {
        return whole(this).stats;
      },
      get hashes() {
        return whole(this).hashes;
      },
      get titles() {
        return whole(this).titles;
      },
      get prios() {
        return whole(this).prios;
      },
    };
    if (ascii) undecoded.set(idx, { buf, from: head });
    const bytes = new Uint8Array(buf.buffer, buf.byteOffset + at, count * 8 * PER_FILE);
    if (open >= OPEN_MAX || count === 0) return readFully(fd, bytes, 0, bytes.length, at) ? { ...idx, ...arrays } : null;
    const u: Unread = { fd, at, bytes, numbers: numbers.subarray(0, count * PER_FILE), alone: new Set() };
    unread.set(idx, u);
    closer.register(idx, fd, u);
    open++;
    keep = true;
    return idx;
  } catch {
    return null;
  } finally {
    if (!keep) closeSync(fd);
  }
}

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
 * The bytes `idx` was read from, where they can be written again as its snapshot: the same stamp,
 * names and count, a mark of the same length, and every array still the view readStatIndex made (a
 * snapshot built anew, or given other arrays, is written from them).
 */
function asRead(idx: StatIndex, stamp: string, mark: Buffer): Buffer | null {
  const r = idx.read;
  const l = r && r.names === idx.names ? layout(r.buf, r.buf.length, stamp) : null;
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
