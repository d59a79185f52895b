import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { byteOrder } from './byte-order.js';

/**
 * What git's own index says of the agents' work files: for each, its blob id and the stat numbers git
 * took when it last knew the file's content. A file whose numbers still equal those is that blob, by
 * the argument `git status` itself rests on: that lets a fresh clone (no local/ cache) take what the
 * frontier reads of it from a cache keyed by content (content-cache.ts) instead of reading it.
 *
 * Why a match proves the content (the same reasoning as git's racy-git handling):
 * - git records a file's numbers when it writes or hashes the file, for the content it wrote or
 *   hashed, and writes the index after that (lock file + rename, so never torn);
 * - any later change to the file sets its ctime to the time of the change, which is not before the
 *   index was written; no user call sets a ctime;
 * - so a file whose inode, size, mtime and ctime are those recorded, and whose recorded mtime and
 *   ctime are both strictly before the index file's mtime, has not changed since git knew it. An
 *   entry whose times are not before the index's ("racily clean": the file may have changed in the
 *   tick the index was written) vouches for nothing.
 * Anything this does not read with certainty gives no answer at all, never a guess: GIT_DIR,
 * GIT_INDEX_FILE, GIT_WORK_TREE or GIT_COMMON_DIR set, a `core.worktree` in the config, an unknown
 * index version, a split index (its entries live in a second file), an extension git itself would
 * refuse, a torn file. And an entry vouches only for a file git itself would call clean without
 * reading it: stage 0 (no conflict), a regular file, neither skip-worktree nor intent-to-add.
 *
 * Compact by design (50,000 entries): the index is read in windows of a quarter MB, never whole, and
 * what is kept is only, for each listed work file, its entry's stat data and blob id as git wrote
 * them, and those words decoded, in typed arrays by listing position (120 bytes a file): no object or
 * string per entry outlives the walk. At 50,000 items the whole index in one Buffer and a map of its
 * names raised a cold frontier's peak memory by some 20 MB.
 *
 * Cheap per entry, since the walk runs without V8's optimizing compiler (a short command): the
 * listing's names are found by a merge (both are in byte order), each entry is one copy of its first
 * 60 bytes, and the numbers of them all are decoded with one swap of bytes. At 10,000 entries that
 * took the walk from some 187 M instructions to 102 M (valgrind, a fresh process each).
 */

export interface GitIndex {
  /** The git folder shared by every worktree of the repository (its config names the repository). */
  commonDir: string;
  /** What git vouches for of one agent's listed files, by listing position; undefined: nothing. */
  work(agent: string): WorkIndex | undefined;
}

export interface WorkIndex {
  /** Whether git's index has a plain, not racily clean entry for the listed file at `i`. */
  has(i: number): boolean;
  /** Whether the file's numbers as listed (work-listing.ts) are what that entry recorded. */
  vouches(i: number, stats: Float64Array): boolean;
  /** The entry's blob id and recorded size, `HEX:SIZE`: the key of the content cache. */
  blobKey(i: number): string;
  /** Per listed file, its entry's recorded size and blob id as six 32-bit numbers (what blobKey names, without a string a file). */
  blobWords(): Uint32Array;
}

/** The git folder of the checkout that holds `dir`, and that checkout's root; null when none. */
function findGitDir(dir: string): { gitDir: string; root: string } | null {
  for (let d = resolve(dir); ; d = dirname(d)) {
    const dot = join(d, '.git');
    try {
      const st = statSync(dot);
      if (st.isDirectory()) return { gitDir: dot, root: d };
      // A linked worktree or a submodule: `.git` is a file naming the real folder.
      const m = /^gitdir: (.+)$/m.exec(readFileSync(dot, 'utf8'));
      if (!m) return null;
      const g = m[1].trim();
      return { gitDir: isAbsolute(g) ? g : resolve(d, g), root: d };
    } catch {
      // None here: look further up.
    }
    if (dirname(d) === d) return null;
  }
}

// As node computes Stats.mtimeMs from the seconds and nanoseconds, so the numbers compare equal.
const msOf = (s: number, ns: number) => s * 1e3 + ns / 1e6;

/** Stat data offsets in an entry: ctime s/ns 0/4, mtime s/ns 8/12, dev 16, ino 20, mode 24, size 36, blob 40, flags 60. */
const NAME_AT = 62;
/** Kept per listed file: its entry's stat data and blob id, the first 60 bytes (15 big-endian words). */
const ENTRY = 60;
const WORDS = ENTRY / 4;

const worktreeSet = (file: string) => {
  try {
    return /^\s*worktree\s*=/im.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * git's index for the checkout that holds `home` (absolute), for the listed work files of its agents
 * (`agents/AGENT/work/NAME`); null when it cannot be read with certainty (see above).
 */
export function readGitIndex(home: string, listings: ReadonlyArray<{ agent: string; names: string[] }>, env: NodeJS.ProcessEnv = process.env): GitIndex | null {
  if (env.GIT_DIR || env.GIT_INDEX_FILE || env.GIT_WORK_TREE || env.GIT_COMMON_DIR) return null;
  const found = findGitDir(home);
  if (!found) return null;
  let commonDir = found.gitDir;
  try {
    const c = readFileSync(join(found.gitDir, 'commondir'), 'utf8').trim();
    commonDir = isAbsolute(c) ? c : resolve(found.gitDir, c);
  } catch {
    // Not a linked worktree: its git folder is the common one.
  }
  // A work tree set elsewhere: index paths would be relative to another folder.
  if (worktreeSet(join(commonDir, 'config')) || worktreeSet(join(found.gitDir, 'config.worktree'))) return null;
  const rel = relative(found.root, home).split('\\').join('/');
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  let fd: number;
  try {
    fd = openSync(join(found.gitDir, 'index'), 'r');
  } catch {
    return null;
  }
  try {
    const agents = walk(new Reader(fd), `${rel ? rel + '/' : ''}agents/`, listings);
    return agents && { commonDir, work: (agent) => agents.get(agent) };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Bytes as UTF-8 text: Buffer's own slice where node has it (what toString calls after checking its
 * arguments, a cost per entry of a 50,000-entry index), else toString.
 */
const utf8: (b: Buffer, from: number, to: number) => string =
  typeof (Buffer.prototype as { utf8Slice?: unknown }).utf8Slice === 'function'
    ? (b, from, to) => (b as Buffer & { utf8Slice(from: number, to: number): string }).utf8Slice(from, to)
    : (b, from, to) => b.toString('utf8', from, to);

/** The listing position of an entry's name, from the agent's cursor on (see walk); undefined when not listed. */
function positionOf(into: { names: string[]; next: number }, name: string): number | undefined {
  const { names } = into;
  let j = into.next;
  while (j < names.length && names[j] !== name && byteOrder(names[j], name) < 0) j++;
  into.next = j;
  return j < names.length && names[j] === name ? j : undefined;
}

/** The index file through a window of its bytes (sequential reads; a window is read again where an entry does not fit). */
class Reader {
  buf = Buffer.allocUnsafe(1 << 18);
  // DataView and Uint8Array methods are builtins, fast without the optimizing compiler (off for a
  // short command, bin/holon.js); Buffer's readUInt32BE and indexOf are JavaScript, several times slower.
  dv = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  u8 = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  /** The file offset of buf[0], and how many bytes of buf are the file's. */
  start = 0;
  len = 0;
  readonly size: number;
  /** The index file's mtime, from the same open file as its bytes. */
  readonly mtimeMs: number;

  constructor(private readonly fd: number) {
    const st = fstatSync(fd);
    this.size = st.size;
    this.mtimeMs = st.mtimeMs;
  }

  /** Makes file bytes [at, at + n) readable at buf[at - start]; false past the end of the file. */
  ensure(at: number, n: number): boolean {
    if (at + n > this.size) return false;
    if (at >= this.start && at + n <= this.start + this.len) return true;
    if (n > this.buf.length) {
      this.buf = Buffer.allocUnsafe(2 * n);
      this.dv = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
      this.u8 = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.length);
    }
    const want = Math.min(this.buf.length, this.size - at);
    let got = 0;
    while (got < want) {
      const r = readSync(this.fd, this.buf, got, want - got, at + got);
      if (r <= 0) return false;
      got += r;
    }
    this.start = at;
    this.len = got;
    return true;
  }

  /** The file offset of the first NUL at or after `p` (reading on as needed), or -1 before `end`. */
  nul(p: number, end: number): number {
    for (let n = Math.min(4096, end - p); ; n = Math.min(2 * n, end - p)) {
      if (n <= 0 || !this.ensure(p, n)) return -1;
      const i = this.u8.indexOf(0, p - this.start);
      if (i >= 0 && i < p - this.start + n) return this.start + i;
      if (p + n >= end) return -1;
    }
  }
}

/**
 * The plain, not racily clean entries under `prefix` + `AGENT/work/NAME` for the listed names, in
 * typed arrays by listing position; null when unsure (another version, a split index, a torn file).
 */
function walk(r: Reader, prefixText: string, listings: ReadonlyArray<{ agent: string; names: string[] }>): Map<string, WorkIndex> | null {
  if (!r.ensure(0, 12) || r.buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = r.dv.getUint32(4);
  if (version < 2 || version > 4) return null;
  const count = r.dv.getUint32(8);
  const end = r.size - 20; // the checksum
  const indexMs = r.mtimeMs;
  // Each agent's names, found by a cursor: the listing is in readdir's byte order (libuv sorts by
  // strcmp) and git's entries of one folder in the same order, so a merge finds each entry's position
  // with no map of 10,000 names (a name out of that order is only not found: parsed, not vouched).
  const byAgent = new Map<string, { names: string[]; next: number; raw: Uint8Array; has: Uint8Array }>();
  for (const l of listings) {
    byAgent.set(l.agent, { names: l.names, next: 0, raw: new Uint8Array(ENTRY * l.names.length), has: new Uint8Array(l.names.length) });
  }
  const prefix = Buffer.from(prefixText);
  const plen = prefix.length;
  // String positions (a home's path may hold characters of more than one byte).
  const pl = prefixText.length;
  // The folder of the last work file found (`PREFIX/AGENT/work/`), and its agent's arrays.
  let dir = '';
  let into: ReturnType<typeof byAgent.get>;
  // v4 names are the previous name less N bytes plus a suffix: rebuilt here, in one reused buffer.
  let cur = Buffer.alloc(version === 4 ? 4096 : 0);
  let curLen = 0;
  let at = 12;
  for (let n = 0; n < count; n++) {
    if (!r.ensure(at, NAME_AT + 2) && !r.ensure(at, NAME_AT)) return null;
    const dv = r.dv;
    const o = at - r.start;
    const flags = dv.getUint16(o + 60);
    const extended = version >= 3 && (flags & 0x4000) !== 0;
    const ext = extended ? dv.getUint16(o + NAME_AT) : 0;
    const nameAt = at + NAME_AT + (extended ? 2 : 0);
    let next: number;
    let name: Buffer;
    let from: number;
    let to: number;
    if (version === 4) {
      let strip = 0;
      let p = nameAt;
      let byte: number;
      do {
        if (!r.ensure(p, 1)) return null;
        byte = r.u8[p++ - r.start];
        strip = (strip << 7) | (byte & 0x7f);
        if (byte & 0x80) strip++;
      } while (byte & 0x80);
      const nul = r.nul(p, end);
      if (nul < 0 || strip > curLen) return null;
      const keep = curLen - strip;
      if (keep + nul - p > cur.length) {
        const bigger = Buffer.alloc(2 * (keep + nul - p));
        cur.copy(bigger, 0, 0, keep);
        cur = bigger;
      }
      r.buf.copy(cur, keep, p - r.start, nul - r.start);
      curLen = keep + nul - p;
      name = cur;
      from = 0;
      to = curLen;
      next = nul + 1;
      // The entry's numbers in the window again (reading its name may have moved the window past them).
      if (!r.ensure(at, NAME_AT)) return null;
    } else {
      // The flags' low 12 bits are the name's length (0xFFF: that long or longer).
      const len = flags & 0xfff;
      const nul = len < 0xfff ? nameAt + len : r.nul(nameAt + len, end);
      if (nul < 0 || !r.ensure(at, nul + 1 - at) || r.u8[nul - r.start] !== 0) return null;
      name = r.buf;
      from = nameAt - r.start;
      to = nul - r.start;
      // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
      next = at + ((nul - at + 8) & ~7);
    }
    // (The window holds the whole entry: its numbers and its name.)
    const e = at - r.start;
    // The first byte rejects most other paths without decoding them; the rest is compared as a string.
    if (to - from > plen && name[from] === prefix[0]) {
      const path = utf8(name, from, to);
      let base: string | undefined;
      // Entries are sorted by path: one folder's files come together, so most are in the folder of the
      // entry before (a work file: no further slash).
      if (dir && path.startsWith(dir)) {
        if (path.indexOf('/', dir.length) < 0) base = path.slice(dir.length);
      } else {
        const slash = path.startsWith(prefixText) ? path.indexOf('/', pl) : -1;
        if (slash > pl && path.startsWith('/work/', slash) && path.indexOf('/', slash + 6) < 0) {
          into = byAgent.get(path.slice(pl, slash));
          dir = path.slice(0, slash + 6);
          base = path.slice(slash + 6);
        }
      }
      const i = into && base !== undefined ? positionOf(into, base) : undefined;
      // Its stat data and blob id as they are (one native copy; decoded for all entries at once below),
      // if git would call it clean without reading it: stage 0, neither skip-worktree nor intent-to-add.
      if (i !== undefined && ((flags >> 12) & 3) === 0 && (ext & 0x6000) === 0) {
        into!.raw.set(r.u8.subarray(e, e + ENTRY), ENTRY * i);
        into!.has[i] = 1;
      }
    }
    at = next;
  }
  // Extensions up to the checksum: a split index ("link") keeps entries in a second file; another
  // extension not named in upper case is one git itself refuses to read without understanding it,
  // except the sparse-directory marker, whose directory entries are not regular files and are skipped above.
  while (at < end) {
    if (at + 8 > end || !r.ensure(at, 8)) return null;
    const sig = r.buf.toString('latin1', at - r.start, at - r.start + 4);
    if (!(sig[0] >= 'A' && sig[0] <= 'Z') && sig !== 'sdir') return null;
    at += 8 + r.dv.getUint32(at - r.start + 4);
  }
  if (at !== end) return null;
  const out = new Map<string, WorkIndex>();
  for (const [a, { raw, has }] of byAgent) {
    if (!has.includes(1)) continue;
    // The big-endian words of every entry at once: a copy turned in one native call (swap32).
    const turned = Buffer.from(raw).swap32();
    // (A small copy may sit in node's buffer pool: at an offset, always a multiple of 8.)
    const words = new Uint32Array(turned.buffer, turned.byteOffset, turned.length / 4);
    const blobs = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    // A regular file whose recorded times are strictly before the index was written (not racily clean).
    const regular = (w: number) => (words[w + 6] & 0o170000) === 0o100000;
    out.set(a, {
      has: (i) => has[i] === 1 && regular(WORDS * i) && msOf(words[WORDS * i + 2], words[WORDS * i + 3]) < indexMs && msOf(words[WORDS * i], words[WORDS * i + 1]) < indexMs,
      vouches: (i, stats) => {
        const j = 4 * i;
        const w = WORDS * i;
        // git keeps the low 32 bits of the inode and the size. Times equal to the recorded ones: so
        // these are the recorded ones, to be before the index's.
        return has[i] === 1 && stats[j] % 2 ** 32 === words[w + 5] && stats[j + 1] % 2 ** 32 === words[w + 9] && stats[j + 2] === msOf(words[w + 2], words[w + 3]) && stats[j + 3] === msOf(words[w], words[w + 1]) && stats[j + 2] < indexMs && stats[j + 3] < indexMs && regular(w);
      },
      blobKey: (i) => `${blobs.toString('hex', ENTRY * i + 40, ENTRY * i + 60)}:${words[WORDS * i + 9]}`,
      blobWords: () => {
        // Size (word 9) and the blob id (words 10 to 14), as decoded from git's big-endian words.
        const out = new Uint32Array(6 * has.length);
        for (let i = 0, o = 0, w = 9; i < has.length; i++, w += WORDS) for (let k = 0; k < 6; k++) out[o++] = words[w + k];
        return out;
      },
    });
  }
  return out;
}
