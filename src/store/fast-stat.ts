import { lstatSync, statSync, type Stats } from 'node:fs';
import { nodeBinding } from './node-binding.js';

/**
 * A file's numbers for the listings that stat every work file (work-listing.ts, kept-listing.ts, the
 * keeper's sweep): at 10,000 files `fs.lstatSync` costs some 38 ms of cpu here, half of it node's own
 * wrapping (path validation, a `Stats` object per call). Node's fs binding, which `lstatSync` itself
 * calls, returns the same numbers in one shared Float64Array: 17 ms for the same 10,000 files.
 *
 * That binding is not a public API, so it is used only where it proves itself: only where node's own
 * `lstatSync` and `statSync` call it the way this file does (their source, read at run time, passes
 * `throwIfNoEntry` as the fourth argument: node 20 before 20.11 took a context object there), and only
 * if on first use its numbers for a real file equal `lstatSync`'s and `statSync`'s, field by field, and
 * it misses or throws as they do (`proven`). Otherwise holon uses `lstatSync` for the rest of the
 * process. It is also not used under node's permission model (whose checks live in `lstatSync`), and it
 * is reached through node-binding.ts (`process.binding` is DEP0111, a warning only under
 * --pending-deprecation). `HOLON_FAST_STAT=0` turns it off.
 */
export interface FileNumbers {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  nlink: number;
  /** st_mode: the type bits say file, link or other. */
  mode: number;
}

const S_IFMT = 0o170000;
export const isRegular = (n: FileNumbers): boolean => (n.mode & S_IFMT) === 0o100000;
export const isSymlink = (n: FileNumbers): boolean => (n.mode & S_IFMT) === 0o120000;

type RawStat = (path: string, bigint: false, req: undefined, throwIfNoEntry: boolean) => Float64Array | undefined;
interface Raw {
  lstat: RawStat;
  stat: RawStat;
}

// The binding's layout (node's getStatsFromBinding): dev, mode, nlink, uid, gid, rdev, blksize, ino,
// size, blocks, then seconds and nanoseconds of atime, mtime, ctime, birthtime.
const fromRaw = (a: Float64Array): FileNumbers => ({
  ino: a[7],
  size: a[8],
  // node's own formula (msFromTimeSpec), so the numbers equal a Stats object's to the last bit
  mtimeMs: a[12] * 1e3 + a[13] / 1e6,
  ctimeMs: a[14] * 1e3 + a[15] / 1e6,
  nlink: a[2],
  mode: a[1],
});

const fromStats = (s: Stats): FileNumbers => ({ ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, nlink: s.nlink, mode: s.mode });

const same = (a: FileNumbers, b: FileNumbers): boolean =>
  a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.nlink === b.nlink && a.mode === b.mode;

/** How node's lstatSync calls its binding where the binding takes the arguments this file passes. */
const CALLED_SO = /binding\.lstat\(\s*[^,]+,\s*options\.bigint,\s*undefined,\s*options\.throwIfNoEntry,?\s*\)/;

/** undefined: not decided yet; null: not used in this process. */
let raw: Raw | null | undefined;
let tries = 0;

function rawBinding(path: string): Raw | null {
  if (raw !== undefined) return raw;
  if (process.env.HOLON_FAST_STAT === '0' || (process as { permission?: unknown }).permission) return (raw = null);
  try {
    raw = proven(path);
  } catch {
    // The path could not be stat'ed (a permission): undecided, so that a later path proves it (a few tries).
    raw = ++tries < 3 ? undefined : null;
  }
  return raw ?? null;
}

/**
 * The binding, if it gives lstatSync's and statSync's numbers for `path` (or, if that is gone, for the
 * current directory), and misses or throws as lstatSync does for a name under it (ENOTDIR under a file,
 * ENOENT under a folder: node 20 before 20.11 took a context object where this passes `false`, and
 * read every error as a missing file). The binding fills one shared array on every call, so each
 * answer is copied out before the next call.
 */
function proven(path: string): Raw | null {
  const b = nodeBinding<Partial<Raw>>('fs');
  if (!b || typeof b.lstat !== 'function' || typeof b.stat !== 'function') return null;
  if (!CALLED_SO.test(String(lstatSync)) || !CALLED_SO.test(String(statSync).replace('binding.stat(', 'binding.lstat('))) return null;
  const candidate = { lstat: b.lstat.bind(b), stat: b.stat.bind(b) } as Raw;
  for (const p of [path, '.']) {
    const l = candidate.lstat(p, false, undefined, false);
    if (l && l.length < 16) return null;
    const mineL = l && fromRaw(l);
    const st = candidate.stat(p, false, undefined, false);
    const mineS = st && fromRaw(st);
    const theirsL = lstatSync(p, { throwIfNoEntry: false });
    const theirsS = statSync(p, { throwIfNoEntry: false });
    // Gone meanwhile, or a link to nothing: the current directory proves it instead.
    if (!mineL || !mineS || !theirsL || !theirsS) continue;
    if (!same(mineL, fromStats(theirsL)) || !same(mineS, fromStats(theirsS))) return null;
    const under = `${p}/.holon-fast-stat-probe`;
    return outcome(() => candidate.lstat(under, false, undefined, false)) === outcome(() => lstatSync(under, { throwIfNoEntry: false })) ? candidate : null;
  }
  return null;
}

const outcome = (f: () => unknown): string => {
  try {
    return f() === undefined ? 'missing' : 'found';
  } catch (err) {
    return `thrown ${(err as NodeJS.ErrnoException).code}`;
  }
};

const viaNode = { lstat: lstatSync, stat: statSync };

function numbers(call: 'lstat' | 'stat', path: string): FileNumbers | null {
  const r = rawBinding(path);
  if (r) {
    const a = r[call](path, false, undefined, false);
    return a ? fromRaw(a) : null;
  }
  const s = viaNode[call](path, { throwIfNoEntry: false });
  return s ? fromStats(s) : null;
}

/** lstat's numbers of `path`; null when it does not exist. Other errors (a permission) are thrown. */
export const lstatNumbers = (path: string): FileNumbers | null => numbers('lstat', path);

/** stat's numbers of `path` (a symbolic link followed); null when it, or the link's target, does not exist. */
export const statNumbers = (path: string): FileNumbers | null => numbers('stat', path);

/** Whether this process reads the binding (true), lstatSync (false), or has not stat'ed yet (undefined). */
export const fastStatInUse = (): boolean | undefined => (raw === undefined ? undefined : raw !== null);

/** For tests: forget whether the binding was proven, so the next call proves it again. */
export function resetFastStat(): void {
  raw = undefined;
  tries = 0;
}
