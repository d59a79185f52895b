import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { alignedView } from './aligned.js';
import { readFully } from './read-fully.js';
import { DIGEST, FIXED, layout, PER_FILE, SIG, SUMS } from './stat-index-layout.js';
import type { StatIndex, Titled } from './stat-index.js';
import { trace } from './trace.js';

// Reading a graph snapshot (stat-index.ts): its names and numbers on first need.

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
    // (Past the end: undefined, what the names split give there, without decoding them all.)
    at: (i) => (i >= 0 && i < count ? buf.toString('latin1', from + starts[i], from + starts[i + 1] - 1) : (undefined as unknown as string)),
    indexOf(name) {
      // No ASCII name has a character past 0x7f, nor a newline.
      if (!name || /[^\x00-\x09\x0b-\x7f]/.test(name)) return -1;
      const line = Buffer.from(`\n${name}\n`, 'latin1');
      // A whole line: at the start, between two newlines, or at the end.
      let p = -1;
      if (end - from >= name.length && buf.toString('latin1', from, from + name.length) === name && (end - from === name.length || buf[from + name.length] === 10)) p = from;
      else {
        // Among the names only: the bytes after them are numbers, some not read yet (fresh memory).
        const q = buf.subarray(from, end).indexOf(line);
        if (q >= 0) p = from + q + 1;
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

/**
 * A snapshot's numbers not read yet (its four stat numbers, hash, title and priority hashes per file):
 * the open file they are in, where, and the ones read alone so far.
 */
interface Unread {
  fd: number;
  path: string;
  /**
   * Why its numbers cannot be read (the file ended early, or did not read: never by holon, which
   * replaces a snapshot by rename): from then on every read of them throws, rather than give numbers
   * that were never read.
   */
  broken?: string;
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
export const OPEN_MAX = 64;
/** A snapshot dropped with its numbers unread closes its file then (a long-running watcher reads many). */
const closer = new FinalizationRegistry<number>((fd) => {
  open--;
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

/** Closes the file of a snapshot's numbers: read whole (then the snapshot is one like any other), or broken. */
function closeUnread(idx: object, u: Unread, broken?: string): void {
  if (broken) u.broken = broken;
  else unread.delete(idx);
  if (u.fd < 0) return;
  open--;
  closer.unregister(u);
  try {
    closeSync(u.fd);
  } catch {
    // Nothing to do: it was read.
  }
  u.fd = -1;
}

/**
 * Reads `length` bytes of a snapshot's numbers at `offset` into its buffer (or into the start of
 * `into`); throws, and marks it broken, where they cannot be.
 */
function readNumbers(idx: object, u: Unread, offset: number, length: number, into?: Uint8Array): void {
  if (u.broken) throw new Error(u.broken);
  let ok = false;
  try {
    ok = into ? readFully(u.fd, into, 0, length, u.at + offset) : readFully(u.fd, u.bytes, offset, length, u.at + offset);
  } catch {
    // Said below.
  }
  if (!ok) {
    closeUnread(idx, u, `the graph snapshot ${u.path} did not read as it was written (a cache: remove it and run again)`);
    throw new Error(u.broken);
  }
}

/** Reads a snapshot's numbers whole into its buffer, keeping those read alone (which may be patched). */
function readWhole(idx: object, u: Unread, count: number): void {
  const kept = [...u.alone].map((e) => [e, u.numbers[e]] as const);
  trace(`snapshot: ${count} files' numbers read whole`);
  readNumbers(idx, u, 0, u.bytes.length);
  closeUnread(idx, u);
  for (const [e, v] of kept) u.numbers[e] = v;
}

/** Numbers [e, e + n) of an unread snapshot of `count` files, read where they were not yet. */
function readAlone(idx: object, u: Unread, count: number, e: number, n: number): void {
  if (u.alone.has(e)) return;
  if (!(e >= 0 && e + n <= 7 * count)) throw new Error(`no file ${e} in the snapshot`);
  readNumbers(idx, u, 8 * e, 8 * n);
  for (let k = 0; k < n; k++) u.alone.add(e + k);
}

/**
 * File i's four numbers in a snapshot, a view (written through: graph-index.ts quickDigest patches
 * them), reading only them where the snapshot's numbers were not read whole.
 */
export function statsOf(idx: StatIndex, i: number): Float64Array {
  if (!(i >= 0 && i < idx.count)) throw new Error(`no file ${i} in the snapshot`);
  const u = unread.get(idx);
  if (!u) return idx.stats.subarray(4 * i, 4 * i + 4);
  readAlone(idx, u, idx.count, 4 * i, 4);
  return u.numbers.subarray(4 * i, 4 * i + 4);
}

/**
 * The snapshot's arrays where file i's numbers are read (only they, where the snapshot's numbers were
 * not read whole: the caller reads and patches position i alone).
 */
export function rowOf(idx: StatIndex, i: number): Pick<StatIndex, 'stats' | 'hashes' | 'titles' | 'prios'> {
  const n = idx.count;
  if (!(i >= 0 && i < n)) throw new Error(`no file ${i} in the snapshot`);
  const u = unread.get(idx);
  if (!u) return idx;
  readAlone(idx, u, n, 4 * i, 4);
  for (const a of [4, 5, 6]) readAlone(idx, u, n, a * n + i, 1);
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
  readAlone(snap, u, n, a * n + i, 1);
  return u.numbers[a * n + i];
}

const COPY_CHUNK = 64 * 1024;

/**
 * The bytes of a snapshot whose numbers were not read whole, as it is now: `buf` (what was read of
 * its file: the head as read, the names, and the sums, name starts and NaN bits, these three patched
 * in place), and `chunks`, the file's bytes from its numbers on, in order: the numbers copied from its
 * file through one small buffer with those read alone (and patched since: graph-index.ts quickDigest)
 * put over them, then the rest from `buf`. Each chunk is valid until the next is asked for. Null
 * where the numbers were read whole (its arrays hold them), or cannot be read.
 */
export function unreadBytes(idx: StatIndex): { buf: Buffer; chunks: () => Generator<Uint8Array> } | null {
  const u = unread.get(idx);
  const buf = idx.read?.buf;
  if (!u || u.broken || !buf || u.fd < 0) return null;
  const end = u.at + u.bytes.length;
  const alone = [...u.alone].sort((a, b) => a - b);
  function* chunks(): Generator<Uint8Array> {
    const scratch = Buffer.allocUnsafeSlow(COPY_CHUNK);
    let k = 0;
    for (let a = 0; a < u!.bytes.length; a += COPY_CHUNK) {
      const n = Math.min(COPY_CHUNK, u!.bytes.length - a);
      readNumbers(idx, u!, a, n, scratch);
      // The numbers read alone, as they are in memory now (8 bytes each, never across a chunk: 64 KB is 8-aligned).
      for (; k < alone.length && 8 * alone[k] < a + n; k++) scratch.set(u!.bytes.subarray(8 * alone[k], 8 * alone[k] + 8), 8 * alone[k] - a);
      yield scratch.subarray(0, n);
    }
    yield buf!.subarray(end);
  }
  return { buf, chunks };
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
    // All of it in one buffer, as the file is, but the numbers (read below, or when first needed):
    // memory not written is not touched, so it costs no page fault. First the fixed head, whose
    // lengths say where the rest is.
    const buf = Buffer.allocUnsafeSlow(size);
    if (size < FIXED || !readFully(fd, buf, 0, FIXED, 0)) return null;
    const headLen = FIXED + buf.readUInt32LE(12) + buf.readUInt32LE(16) + DIGEST + SIG;
    if (headLen > size || !readFully(fd, buf, FIXED, headLen - FIXED, FIXED)) return null;
    const l = layout(buf.subarray(0, headLen), size, stamp);
    if (!l) return null;
    const { count, stampEnd, markEnd, head, at, startsAt } = l;
    const numbersEnd = at + count * 8 * PER_FILE;
    if (!readFully(fd, buf, head, at - head, head) || !readFully(fd, buf, numbersEnd, size - numbersEnd, numbersEnd)) return null;
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
        get as() {
          return idx;
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
    // Past OPEN_MAX open files (or none to read), the numbers now, and the snapshot is one like any other.
    if (open >= OPEN_MAX || count === 0) return readFully(fd, bytes, 0, bytes.length, at) ? idx : null;
    const u: Unread = { fd, path, at, bytes, numbers: numbers.subarray(0, count * PER_FILE), alone: new Set() };
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
