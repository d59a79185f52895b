import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

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
 * Compact by design (50,000 entries): the index stays one Buffer; per entry only its name and its
 * offset in that Buffer are kept, and the blob id and numbers are read from it when a name is asked for.
 */

export interface GitIndex {
  /** The git folder shared by every worktree of the repository (its config names the repository). */
  commonDir: string;
  /** An agent's work files git vouches for: file name to the entry's offset (for `vouches`, `blobKey`). */
  work(agent: string): Map<string, number> | undefined;
  /** Whether the file at `i` of a listing's numbers (work-listing.ts) is what the entry at `at` recorded. */
  vouches(at: number, stats: Float64Array, i: number): boolean;
  /** The entry's blob id and recorded size, `HEX:SIZE`: the key of the content cache. */
  blobKey(at: number): string;
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

/**
 * git's index for the checkout that holds `home` (absolute), for the work files of its agents
 * (`agents/AGENT/work/NAME`); null when it cannot be read with certainty (see above).
 */
export function readGitIndex(home: string, env: NodeJS.ProcessEnv = process.env): GitIndex | null {
  if (env.GIT_DIR || env.GIT_INDEX_FILE || env.GIT_WORK_TREE || env.GIT_COMMON_DIR) return null;
  const found = findGitDir(home);
  if (!found) return null;
  let buf: Buffer;
  let indexMs: number;
  let commonDir = found.gitDir;
  try {
    try {
      const c = readFileSync(join(found.gitDir, 'commondir'), 'utf8').trim();
      commonDir = isAbsolute(c) ? c : resolve(found.gitDir, c);
    } catch {
      // Not a linked worktree: its git folder is the common one.
    }
    // A work tree set elsewhere: index paths would be relative to another folder.
    const worktreeSet = (file: string) => {
      try {
        return /^\s*worktree\s*=/im.test(readFileSync(file, 'utf8'));
      } catch {
        return false;
      }
    };
    if (worktreeSet(join(commonDir, 'config')) || worktreeSet(join(found.gitDir, 'config.worktree'))) return null;
    const path = join(found.gitDir, 'index');
    // The index's mtime before its bytes: an index replaced in between is newer, never older, than the one read.
    indexMs = statSync(path).mtimeMs;
    buf = readFileSync(path);
  } catch {
    return null;
  }
  const rel = relative(found.root, home).split('\\').join('/');
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  // DataView and Uint8Array methods are builtins, fast without the optimizing compiler (off for a
  // short command, bin/holon.js); Buffer's readUInt32BE and indexOf are JavaScript, several times slower.
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const agents = parseIndex(buf, dv, Buffer.from(`${rel ? rel + '/' : ''}agents/`), indexMs);
  if (!agents) return null;
  const u32 = (at: number) => dv.getUint32(at);
  return {
    commonDir,
    work: (agent) => agents.get(agent),
    vouches: (at, stats, i) => {
      const j = 4 * i;
      // git keeps the low 32 bits of the inode and the size.
      return stats[j] % 2 ** 32 === u32(at + 20) && stats[j + 1] % 2 ** 32 === u32(at + 36) && stats[j + 2] === msOf(u32(at + 8), u32(at + 12)) && stats[j + 3] === msOf(u32(at), u32(at + 4));
    },
    blobKey: (at) => `${buf.toString('hex', at + 40, at + 60)}:${u32(at + 36)}`,
  };
}

/** The plain, not racily clean entries under `prefix` + `AGENT/work/`, by agent and file name; null when unsure. */
function parseIndex(buf: Buffer, dv: DataView, prefix: Buffer, indexMs: number): Map<string, Map<string, number>> | null {
  if (buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = dv.getUint32(4);
  if (version < 2 || version > 4) return null;
  const count = dv.getUint32(8);
  const u8 = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  const end = buf.length - 20; // the checksum
  const out = new Map<string, Map<string, number>>();
  const plen = prefix.length;
  const prefixText = prefix.toString('utf8');
  // String positions (a home's path may hold characters of more than one byte).
  const pl = prefixText.length;
  let agent = '';
  let names: Map<string, number> | undefined;
  // v4 names are the previous name less N bytes plus a suffix: rebuilt here, in one reused buffer.
  let cur = version === 4 ? Buffer.alloc(4096) : buf;
  let curLen = 0;
  let at = 12;
  for (let n = 0; n < count; n++) {
    if (at + NAME_AT > end) return null;
    const flags = dv.getUint16(at + 60);
    const extended = version >= 3 && (flags & 0x4000) !== 0;
    const ext = extended ? dv.getUint16(at + NAME_AT) : 0;
    const nameAt = at + NAME_AT + (extended ? 2 : 0);
    // The name is cur[from, to): in the index itself (v2, v3) or in the rebuilt buffer (v4).
    let from: number;
    let to: number;
    let next: number;
    if (version === 4) {
      let strip = 0;
      let p = nameAt;
      let byte: number;
      do {
        if (p >= end) return null;
        byte = buf[p++];
        strip = (strip << 7) | (byte & 0x7f);
        if (byte & 0x80) strip++;
      } while (byte & 0x80);
      const nul = u8.indexOf(0, p);
      if (nul < 0 || nul >= end || strip > curLen) return null;
      const keep = curLen - strip;
      if (keep + nul - p > cur.length) {
        const bigger = Buffer.alloc(2 * (keep + nul - p));
        cur.copy(bigger, 0, 0, keep);
        cur = bigger;
      }
      buf.copy(cur, keep, p, nul);
      curLen = keep + nul - p;
      from = 0;
      to = curLen;
      next = nul + 1;
    } else {
      // The flags' low 12 bits are the name's length (0xFFF: that long or longer).
      const len = flags & 0xfff;
      const nul = len < 0xfff ? nameAt + len : u8.indexOf(0, nameAt + len);
      if (nul < 0 || nul >= end || u8[nul] !== 0) return null;
      from = nameAt;
      to = nul;
      // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
      next = at + ((nul - at + 8) & ~7);
    }
    // The first byte rejects most other paths without decoding them; the rest is compared as a string.
    if (to - from > plen && cur[from] === prefix[0]) {
      const path = cur.toString('utf8', from, to);
      const slash = path.startsWith(prefixText) ? path.indexOf('/', pl) : -1;
      if (slash > pl && path.startsWith('/work/', slash) && path.indexOf('/', slash + 6) < 0) {
        const mode = dv.getUint32(at + 24);
        const stage = (flags >> 12) & 3;
        const plain = stage === 0 && (ext & 0x6000) === 0 && (mode & 0o170000) === 0o100000;
        if (plain && msOf(dv.getUint32(at + 8), dv.getUint32(at + 12)) < indexMs && msOf(dv.getUint32(at), dv.getUint32(at + 4)) < indexMs) {
          // Entries are sorted by path: one agent's files come together.
          if (!agent || !path.startsWith(agent, pl) || path.charCodeAt(pl + agent.length) !== 47) {
            agent = path.slice(pl, slash);
            names = out.get(agent);
            if (!names) out.set(agent, (names = new Map()));
          }
          names!.set(path.slice(slash + 6), at);
        }
      }
    }
    at = next;
  }
  // Extensions up to the checksum: a split index ("link") keeps entries in a second file; another
  // extension not named in upper case is one git itself refuses to read without understanding it, except
  // the sparse-directory marker, whose directory entries are not regular files and are skipped above.
  while (at < end) {
    if (at + 8 > end) return null;
    const sig = buf.toString('latin1', at, at + 4);
    if (!(sig[0] >= 'A' && sig[0] <= 'Z') && sig !== 'sdir') return null;
    at += 8 + dv.getUint32(at + 4);
  }
  return at === end ? out : null;
}
