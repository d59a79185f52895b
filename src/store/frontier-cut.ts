import { join } from 'node:path';
import { entryOrderKey, keyWithPriority } from '../core/frontier.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { addHash, prioHash, readShown, subHash } from './graph-index.js';
import { channelText, entryAt, PER } from './frontier-entry-text.js';
import type { Home } from './home.js';
import type { Titled } from './stat-index.js';
import type { Listing } from './work-listing.js';
import { workDir } from './work-store.js';
import { alignedLine, alignedView } from './aligned.js';

/**
 * The entries the default view's cap left out of not_runnable (ops/frontier.ts, NOT_RUNNABLE_SHOWN),
 * so that a new priority on one of them does not cost a whole evaluation. Such a change moves the
 * item within not_runnable, changing no verdict and no count; the answer shows it only if it now
 * sorts before the last entry shown. So each entry left out is kept with where its file is, the
 * priority hash the answer knows and its order key (entryOrderKey: what else goes into it is in the
 * graph digest, the same while the answer is reused), and a change of one is checked here:
 *
 * - the title index's sums of the files it does not show (frontier-titles.ts) must have moved by
 *   exactly the entries left out whose priority hash changed: anything else (a file in no channel, of
 *   another agent) and the answer is evaluated again;
 * - each such entry is read from its file (which must give the snapshot's hash), and its new key
 *   must sort after the last entry shown, whose own priority has not changed: else it would be shown,
 *   and the answer is evaluated again.
 *
 * It is stored in a file of its own (frontier-cache.ts), read only when a hidden priority changed
 * or a patch (frontier-patch.ts, which also needs each entry's code) changes what is left out, under
 * the lineage of the evaluation or patch that made it: the answers of a title patch keep it.
 */
export interface CutIndex {
  /** Per entry left out, its order key. */
  keys: string[];
  /** Per entry left out, its code (what by_code counts it under, when a patch moves it). */
  codes: string[];
  /**
   * Per entry left out, three numbers at 3n: listing number, position in it, priority hash. Numbers,
   * not an array per entry: a patch copies them by ranges (some 10,000 entries at 50,000 items).
   */
  nums: Float64Array;
}

/** Where each not_runnable entry is, as the shown ones are told (`where`: listing * 2^32 + position). */
export function cutIndexOf(keys: string[], codes: string[], where: number[], snapshots: Titled[]): CutIndex {
  const nums = new Float64Array(3 * keys.length);
  for (let n = 0; n < keys.length; n++) {
    const k = Math.floor(where[n] / 2 ** 32);
    const i = where[n] % 2 ** 32;
    nums[3 * n] = k;
    nums[3 * n + 1] = i;
    nums[3 * n + 2] = snapshots[k].prios[i];
  }
  return { keys, codes, nums };
}

/** Where the entry left out of the file at position i of listing k is in the cut (n), or -1. */
export function cutPlace(cut: CutIndex, k: number, i: number): number {
  const { nums } = cut;
  for (let p = nums.indexOf(i, 1); p >= 0; p = nums.indexOf(i, p + 1)) if (p % 3 === 1 && nums[p - 1] === k) return (p - 1) / 3;
  return -1;
}

/**
 * The stored form (after its lineage line): the order keys and the codes as one JSON line
 * (`[keys, codes]`), then the numbers (listing, position, priority hash per entry) as 64-bit floats.
 * At 50,000 items there are some 10,000 entries left out, and a patch reads and writes them all: as
 * JSON arrays of arrays that cost ~14 ms, mostly the parse and stringify of 30,000 numbers.
 */
export function parseCut(buf: Buffer): CutIndex | null {
  try {
    const nl = buf.indexOf(10);
    if (nl < 0) return null;
    const line = JSON.parse(buf.toString('utf8', 0, nl)) as unknown;
    if (!Array.isArray(line) || line.length !== 2) return null;
    const [keys, codes] = line as unknown[];
    const bytes = buf.subarray(nl + 1);
    if (!Array.isArray(keys) || !Array.isArray(codes) || codes.length !== keys.length || bytes.length !== keys.length * 24) return null;
    if (!keys.every((k) => typeof k === 'string') || !codes.every((c) => typeof c === 'string')) return null;
    return { keys: keys as string[], codes: codes as string[], nums: alignedView(Float64Array, buf, nl + 1, keys.length * 3) };
  } catch {
    return null;
  }
}

/** The stored form as bytes, the numbers 8-aligned in the file (`before`: the bytes before it there). */
export function cutParts(cut: CutIndex, before = 0): Buffer[] {
  const { nums } = cut;
  return [alignedLine(JSON.stringify([cut.keys, cut.codes]), before), Buffer.from(nums.buffer, nums.byteOffset, nums.length * 8)];
}

export interface CutCheck {
  text: Buffer;
  quads: Float64Array;
  /** Per channel (CHANNELS order): entries shown, entries left out. */
  channels: Array<[number, number]>;
  /** Per listing, the title index's sum of the priority hashes of the files it does not show. */
  wasHidden: number[];
  /** The same sums now. */
  hidden: number[];
  listings: Listing[];
  snaps: Titled[];
  holder: string;
}

/**
 * The entries left out with their new priority hashes and keys, when the hidden sums moved by them
 * alone and each still sorts after the last entry shown; null when not (then the answer is evaluated
 * again). They stay in the order of their keys: a patch brings them into view in that order, and
 * finds its place among them by a binary search (frontier-patch.ts), so one whose new key passes a
 * neighbour's is moved to its place, with its code and numbers.
 */
export function stillLeftOut(home: Home, cut: CutIndex, x: CutCheck): CutIndex | null {
  const c = CHANNELS.indexOf('not_runnable');
  const [count, left] = x.channels[c];
  if (!count || left !== cut.keys.length) return null;
  const first = x.channels.slice(0, c).reduce((n, [shown]) => n + shown, 0);
  const delta = x.snaps.map(() => 0);
  const moved: number[] = [];
  const { nums } = cut;
  for (let n = 0; n < cut.keys.length; n++) {
    const k = nums[3 * n];
    const i = nums[3 * n + 1];
    const h = nums[3 * n + 2];
    const now = x.snaps[k]?.prios[i];
    if (now === undefined) return null;
    if (now === h) continue;
    delta[k] = addHash(delta[k], subHash(now, h));
    moved.push(n);
  }
  if (!moved.length || x.snaps.some((_, k) => subHash(x.hidden[k], x.wasHidden[k]) !== delta[k])) return null;
  // The last entry shown bounds the rest, unless its own priority changed too.
  const last = PER * (first + count - 1);
  if (x.snaps[x.quads[last]]?.prios[x.quads[last + 1]] !== x.quads[last + 3]) return null;
  const ch = channelText(x.text, 'not_runnable', count, x.quads, first);
  const e = ch && entryAt(x.text, ch.spans, count - 1);
  if (!e) return null;
  const bound = entryOrderKey(e, x.holder);
  const keys = cut.keys.slice();
  const numsNow = nums.slice();
  for (const n of moved) {
    const k = nums[3 * n];
    const i = nums[3 * n + 1];
    const key = keys[n];
    const l = x.listings[k];
    const name = l.nameAt(i);
    const id = name.slice(0, -3);
    const shown = readShown(join(workDir(home, l.agent), name), id);
    // Changed again since the snapshot was taken: evaluate again rather than mix the two.
    if (!shown || prioHash(id, shown.priority) !== x.snaps[k].prios[i]) return null;
    const now = keyWithPriority(key, shown.priority);
    if (now < bound) return null;
    keys[n] = now;
    numsNow[3 * n + 2] = x.snaps[k].prios[i];
  }
  const after = { keys, codes: cut.codes.slice(), nums: numsNow };
  putInOrder(after, moved);
  return after;
}

/**
 * The cut in key order again after the keys at `moved` changed (the others were in order, and kept
 * theirs), in place: nothing when each moved key still sorts between its neighbours; else the moved
 * entries are taken out and each put back at its key's place, by a binary search, moving the others
 * by native copies (a sort or a rebuilt order of 10,000 entries cost a millisecond and more).
 */
export function putInOrder(cut: CutIndex, moved: number[]): void {
  const { keys, codes, nums } = cut;
  const last = keys.length - 1;
  if (moved.every((n) => (n === 0 || keys[n - 1] < keys[n]) && (n === last || keys[n] < keys[n + 1]))) return;
  // From the last place on, so that the earlier ones hold.
  const out = [...new Set(moved)].sort((a, b) => b - a).map((n) => {
    const e = { key: keys[n], code: codes[n], nums: nums.slice(3 * n, 3 * n + 3) };
    keys.splice(n, 1);
    codes.splice(n, 1);
    nums.copyWithin(3 * n, 3 * n + 3);
    return e;
  });
  for (const e of out) {
    let lo = 0;
    for (let hi = keys.length; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if (keys[mid] < e.key) lo = mid + 1;
      else hi = mid;
    }
    nums.copyWithin(3 * lo + 3, 3 * lo, 3 * keys.length);
    nums.set(e.nums, 3 * lo);
    keys.splice(lo, 0, e.key);
    codes.splice(lo, 0, e.code);
  }
}
