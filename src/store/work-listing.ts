import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RACY_MS } from './cache-file.js';
import { listAgents, type Home } from './home.js';
import { workDir } from './work-store.js';
import { isRegular, isSymlink, lstatNumbers, statNumbers, type FileNumbers } from './fast-stat.js';
import { chainedDigest, listingDigest, rowsOf, type Rows } from './listing-digest.js';
import { bytesNames, startsOf, statsOf, type StatIndex } from './stat-index.js';

/**
 * Lists the agents' work files with their keys, in this process: one readdir, one stat per `.md` name
 * (no child process: spawning `find` and waiting for it cost more wall time than the stats).
 *
 * Why every file is stat'ed on every call (the soundness argument; docs/frontier.md, "Speed and
 * caching"): a cached entry may be used only if its file cannot have changed since it was read.
 * - holon's own writes go through store/ by temp file + rename: new inode, new key.
 * - Added, removed and renamed files (an editor that saves by rename, `git checkout`, `git pull`,
 *   which unlink and create) change the folder's listing, which readdir sees.
 * - An edit in place (`>>`, an editor that truncates and writes) keeps the inode and the folder's
 *   mtime; it changes the file's mtime and size, and when a tool restores both (`touch -r`, utimes
 *   after an edit of the same length) it still changes the ctime, which no user call can set. So
 *   the one stamp that is always moved is the file's own ctime, and only a stat reads it.
 * Nothing short of a stat per file (what `git status` does with its index) or a file-system watcher
 * (inotify, git's fsmonitor) can see the last case. A watcher's notice arrives asynchronously, after
 * the write returned, so a command run right after an edit could read the index before the watcher
 * wrote it; trusting it would need a round trip to the watcher. Until then the stat per file stays:
 * it is the cost of never serving a stale frontier, and it is kept to one syscall per file (no read,
 * no hash, no child process) with the rest of the cost avoided behind it.
 */


export interface Stated {
  names: string[];
  stats: Float64Array;
  racy: Set<string>;
  irregular: Set<string>;
  linked: Set<string>;
}

function statKeys(dir: string): Stated | null {
  let all: string[];
  try {
    all = readdirSync(dir);
  } catch {
    return null;
  }
  const names: string[] = [];
  // Four numbers per file (inode, size, mtime, ctime), kept as numbers: the fingerprint hashes them as
  // bytes, and the key strings are built only when the graph must be loaded.
  const stats = new Float64Array(all.length * 4);
  const racy = new Set<string>();
  const irregular = new Set<string>();
  const linked = new Set<string>();
  const since = Date.now() - RACY_MS;
  let j = 0;
  // Names relative to the folder: the kernel then resolves one path component per stat instead of the
  // whole absolute path, about a quarter less time per file. The working directory is changed only
  // for this synchronous loop (every other path holon uses is absolute) and always restored.
  const cwd = inFolder(dir);
  try {
    for (const name of all) {
      if (!name.endsWith('.md')) continue;
      const e = statEntry(cwd ? name : `${dir}/${name}`);
      if (!e) continue;
      names.push(name);
      j = putStat(stats, j, e.s, name, since, racy, irregular, linked, e.symlink);
    }
  } finally {
    if (cwd) restore(cwd);
  }
  return { names, stats: stats.subarray(0, j), racy, irregular, linked };
}

/**
 * A work file's numbers: its own (lstat), or for a symbolic link its target's, which is what a read
 * gets; null when it is gone (or a link to nothing).
 */
export function statEntry(path: string): { s: FileNumbers; symlink: boolean } | null {
  const own = lstatNumbers(path);
  if (!own) return null;
  if (!isSymlink(own)) return { s: own, symlink: false };
  const target = statNumbers(path);
  return target ? { s: target, symlink: true } : null;
}

/**
 * Puts one file's four numbers at `j` and files it in the sets it belongs to; the next `j`. A symbolic
 * link counts as linked: a write to its target gives no event under the link's name.
 */
export function putStat(stats: Float64Array, j: number, s: FileNumbers, name: string, since: number, racy: Set<string>, irregular: Set<string>, linked: Set<string>, symlink = false): number {
  stats[j] = s.ino;
  stats[j + 1] = s.size;
  stats[j + 2] = s.mtimeMs;
  stats[j + 3] = s.ctimeMs;
  if (s.ctimeMs > since || s.mtimeMs > since) racy.add(name);
  if (!isRegular(s)) irregular.add(name);
  if (s.nlink > 1 || symlink) linked.add(name);
  return j + 4;
}

/**
 * Enters `dir` for a run of relative stats and returns the directory to go back to; null where that
 * cannot be done (a worker thread, or a current directory that no longer exists): absolute paths then.
 */
function inFolder(dir: string): string | null {
  let back: string;
  try {
    back = process.cwd();
    process.chdir(dir);
  } catch {
    return null;
  }
  return back;
}

function restore(dir: string): void {
  try {
    process.chdir(dir);
  } catch {
    // The old directory was removed meanwhile: holon works with absolute paths (ctx.cwd was read at
    // start), so staying in the work folder changes nothing it does.
  }
}

/** One agent's work files and their keys, and its graph cache file. */
export interface Listing {
  agent: string;
  /** The `.md` names (a listing rebuilt from a snapshot splits them on first use), and four numbers per name: inode, size, mtime, ctime. */
  readonly names: string[];
  /** How many names. */
  count: number;
  /** The name at position i (without splitting a snapshot's names). */
  nameAt(i: number): string;
  /** The numbers of every file (a listing rebuilt from a snapshot reads the snapshot's whole on first use). */
  readonly stats: Float64Array;
  /** File i's four numbers, without reading a snapshot's whole numbers for them. */
  numbersAt: Rows;
  /** Name to key (`ino:size:mtime:ctime`, times in microseconds), built on first use. */
  readonly keys: Map<string, string>;
  /** Files changed too recently for their keys to prove them unchanged later (see RACY_MS). */
  racy: Set<string>;
  /** Names that were not regular files when listed (a FIFO, a directory...): read with every guard. */
  irregular: Set<string>;
  /**
   * Files with more than one hard link, and symbolic links: a write through a link in another folder
   * (or to a link's target) reaches them without any event under this name, so the index keeper cannot
   * vouch for them (kept-listing.ts): the snapshot stores them as never matching, and every listing
   * stats them.
   */
  linked: Set<string>;
  /** `EPOCH:GEN` of the index keeper that answered before these files were listed, or ''. */
  mark: string;
  /** The snapshot this listing was rebuilt from (kept-listing.ts), so it is not read twice. */
  snapshot?: StatIndex;
  /** The snapshot whose names these are, as they are (a listing rebuilt from it with no name come or gone). */
  namesOf?: StatIndex;
  /**
   * With `snapshot`: the positions whose numbers were stat'ed again; every other position has the
   * snapshot's numbers as they are (the same names, in the same order).
   */
  looked?: number[];
  /** Store the snapshot under the new mark even if no entry changed (many names were looked at again). */
  remark?: boolean;
  /** Rebuilt from a snapshot with names it stores as never matching that could now be stored plainly. */
  healable?: boolean;
  cachePath: string;
  /** The names joined by '\n', built on first use. */
  readonly joined: string;
  /**
   * What names its names and numbers (its part of the frontier's fingerprint, and the digest of a
   * snapshot stored from it): rebuilt from a snapshot with a digest and at most CHAIN_MAX files stat'ed
   * again, or listed in full with the same names as the snapshot it was given (`base`) and at most
   * CHAIN_MAX files whose numbers moved, that digest chained with the numbers that moved
   * (stat-index.ts chainedDigest); else listingDigest of them all, on first use.
   */
  readonly part: string;
}

/** Past this many files stat'ed again, a listing's part is a SHA-1 of all its numbers (a few ms) rather than a chain. */
const CHAIN_MAX = 512;

/**
 * The files whose four numbers are not byte for byte the same in `a` and `b` (of one length), found
 * by halving with native compares (a JS loop over 50,000 files runs unoptimized in a short process);
 * null past `max`.
 */
export function movedRecords(a: Float64Array, b: Float64Array, max: number): number[] | null {
  const x = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const y = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (x.length !== y.length) return null;
  const out: number[] = [];
  const walk = (lo: number, hi: number): boolean => {
    if (x.compare(y, 32 * lo, 32 * hi, 32 * lo, 32 * hi) === 0) return true;
    if (hi - lo === 1) return out.push(lo) <= max;
    const mid = (lo + hi) >>> 1;
    return walk(lo, mid) && walk(mid, hi);
  };
  return walk(0, x.length / 32) ? out : null;
}

export const keyAt = (stats: Float64Array, i: number) => `${stats[4 * i]}:${stats[4 * i + 1]}:${Math.round(stats[4 * i + 2] * 1000)}:${Math.round(stats[4 * i + 3] * 1000)}`;

/**
 * Lists an agent's work files with their keys; null when the agent has no work folder. `base`: the
 * agent's snapshot, if read already, which the listing's part is chained from (see Listing.part).
 */
export function listAgentWork(home: Home, agent: string, mark = '', base?: StatIndex): Listing | null {
  const listed = statKeys(workDir(home, agent));
  return listed && makeListing(home, agent, listed, { mark, base });
}

/**
 * A Listing over names and numbers listed here or rebuilt from a snapshot (kept-listing.ts). Rebuilt,
 * its numbers are the snapshot's but at `looked`, where they are `moved`'s (the files stat'ed again):
 * `stats` reads the snapshot's whole numbers on first use, numbersAt reads one file's.
 */
export function makeListing(home: Home, agent: string, listed: Omit<Stated, 'names' | 'stats'> & { names: string[] | SnapshotNames; stats?: Float64Array }, o: { mark: string; joined?: string; namesOf?: StatIndex; snapshot?: StatIndex; looked?: number[]; moved?: Map<number, Float64Array>; remark?: boolean; base?: StatIndex }): Listing {
  const { mark, snapshot, looked, remark = false, moved, namesOf } = o;
  const { racy, irregular, linked } = listed;
  const lazy = Array.isArray(listed.names) ? null : listed.names;
  let list = Array.isArray(listed.names) ? listed.names : null;
  const names = () => (list ??= lazy!.all());
  let stats = listed.stats;
  const allStats = () => {
    if (stats) return stats;
    // The snapshot's numbers as read (a patch of the graph moves them in place only at `looked`,
    // whose numbers are the listing's own): a copy when some moved, else the snapshot's own.
    const own = snapshot!.stats;
    return (stats = moved?.size ? withMoved(own, moved) : own);
  };
  const numbersAt: Rows = stats ? rowsOf(stats) : (i) => moved?.get(i) ?? (stats ? stats.subarray(4 * i, 4 * i + 4) : statsOf(snapshot!, i));
  let keys: Map<string, string> | undefined;
  // A snapshot's names are its string, decoded on first use (stat-index.ts).
  let joined = o.joined;
  const joinedOf = () => (joined ??= namesOf ? namesOf.names : names().join('\n'));
  // A hard-linked, symbolic-link or irregular file is stored as NaN every time, so it would count as
  // moved on every call and the chain would never name the same state twice (no answer reused by its
  // fingerprint): such a listing is hashed whole, as before chains.
  const chains = !linked.size && !irregular.size;
  // Now, while the snapshot's numbers are as read (a patch of the graph moves them in place: graph-index.ts).
  let part = chains && snapshot?.digest && looked && looked.length <= CHAIN_MAX ? chainedDigest(snapshot.digest, looked, (i) => statsOf(snapshot, i), numbersAt) : undefined;
  const { base } = o;
  const fromBase = (all: string) => {
    // A full listing of the snapshot's names: chained from it too, where few numbers moved.
    const now = allStats();
    if (!chains || !base?.digest || base.count !== now.length / 4 || base.names !== all) return undefined;
    const found = movedRecords(base.stats, now, CHAIN_MAX);
    return found && chainedDigest(base.digest, found, rowsOf(base.stats), rowsOf(now));
  };
  return {
    racy, irregular, linked, agent, mark, snapshot, namesOf, looked, remark, cachePath: join(home.local, 'cache', `graph-${agent}.json`),
    count: lazy ? lazy.count : list!.length,
    nameAt: (i) => (list ? list[i] : lazy!.at(i)),
    numbersAt,
    get stats() {
      return allStats();
    },
    get names() {
      return names();
    },
    get joined() {
      return joinedOf();
    },
    get part() {
      return (part ??= fromBase(joinedOf()) ?? listingDigest(joinedOf(), allStats()));
    },
    get keys() {
      if (!keys) {
        keys = new Map();
        // Times in whole microseconds: integers print several times faster than fractional doubles, and
        // two writes within one microsecond are inside the racy window anyway.
        const all = names();
        const now = allStats();
        for (let i = 0; i < all.length; i++) keys.set(all[i], keyAt(now, i));
      }
      return keys;
    },
  };
}

/**
 * The names of a snapshot (one string, '\n' between them), split only when many are needed: at
 * 50,000 names the split costs some 10 ms, and a call that finds a file or two changed needs the
 * names of those alone. Snapshots hold no name with a newline in it (graph-index.ts writes none).
 */
export interface SnapshotNames {
  count: number;
  all(): string[];
  /** The name at position i. */
  at(i: number): string;
  /** The position of a name, or -1. */
  indexOf(name: string): number;
}

/** A copy of a snapshot's numbers with those of the files stat'ed again (`moved`, by position) put in. */
export function withMoved(stats: Float64Array, moved: ReadonlyMap<number, Float64Array>): Float64Array {
  const out = new Float64Array(stats);
  for (const [i, v] of moved) out.set(v, 4 * i);
  return out;
}

/** Whether a listing's names are a snapshot's (the same names in the same order), without decoding them where it was rebuilt from it. */
export const sameNames = (snap: Pick<StatIndex, 'names'>, l: Listing): boolean => l.namesOf === snap || snap.names === l.joined;

/** A snapshot's names as SnapshotNames: from their bytes while they are not decoded (stat-index.ts bytesNames), else from the string. */
export function namesOfSnapshot(snap: StatIndex): SnapshotNames {
  const bytes = bytesNames(snap);
  if (!bytes) return snapshotNames(snap.names, snap.count, startsOf(snap));
  let str: SnapshotNames | null = null;
  const whole = () => (str ??= snapshotNames(snap.names, snap.count, startsOf(snap)));
  return {
    count: snap.count,
    all: () => whole().all(),
    at: (i) => (str ? str.at(i) : bytes.at(i)),
    indexOf: (name) => (str ? str.indexOf(name) : bytes.indexOf(name)),
  };
}

/** Looked up one at a time while few are (each a scan of the string), then split. */
const FEW = 8;

export function snapshotNames(joined: string, count: number, starts?: Uint32Array): SnapshotNames {
  let all: string[] | null = null;
  let at: Map<string, number> | null = null;
  let looks = 0;
  const split = () => (all ??= count ? joined.split('\n') : []);
  /** Where line i starts, by counting newlines. */
  const start = (i: number) => {
    let from = 0;
    for (let k = 0; k < i && from >= 0; k++) from = joined.indexOf('\n', from) + 1 || -1;
    return from;
  };
  /** The line that starts at p: a search of the starts, else by counting newlines. */
  const lineAt = (p: number) => {
    if (starts) {
      let lo = 0;
      let hi = count - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= p) lo = mid;
        else hi = mid - 1;
      }
      return starts[lo] === p ? lo : -1;
    }
    let k = 0;
    for (let x = joined.indexOf('\n'); x >= 0 && x < p; x = joined.indexOf('\n', x + 1)) k++;
    return k;
  };
  return {
    count,
    all: split,
    at(i) {
      if (all || (!starts && ++looks > FEW)) return split()[i];
      // Out of range: what the split names give there.
      if (!(i >= 0 && i < count)) return split()[i];
      if (starts) return joined.slice(starts[i], starts[i + 1] - 1);
      const from = start(i);
      const end = joined.indexOf('\n', from);
      return from < 0 ? '' : joined.slice(from, end < 0 ? joined.length : end);
    },
    indexOf(name) {
      if (all || (!starts && ++looks > FEW)) {
        if (!at) {
          at = new Map();
          const list = split();
          for (let i = 0; i < list.length; i++) at.set(list[i], i);
        }
        return at.get(name) ?? -1;
      }
      // A whole line: at the start, between two newlines, or at the end.
      let p = joined === name || joined.startsWith(name + '\n') ? 0 : -1;
      if (p < 0) {
        const q = joined.indexOf('\n' + name + '\n');
        if (q >= 0) p = q + 1;
        else if (joined.endsWith('\n' + name)) p = joined.length - name.length;
      }
      return p < 0 ? -1 : lineAt(p);
    },
  };
}

export function listAll(home: Home, agents = listAgents(home)): Listing[] {
  const out: Listing[] = [];
  for (const a of agents) {
    const l = listAgentWork(home, a);
    if (l) out.push(l);
  }
  return out;
}
