import { join } from 'node:path';
import { entryOrderKey, keyWithPriority, type FrontierEntry } from '../core/frontier.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { addHash, prioHash, readShown, subHash } from './graph-index.js';
import { PER } from './frontier-entry-text.js';
import type { Home } from './home.js';
import type { Titled } from './stat-index.js';
import type { Listing } from './work-listing.js';
import { workDir } from './work-store.js';
import { alignedLine, alignedView } from './aligned.js';
import { CodeColumn, FixedStrings, widthOk } from './cut-columns.js';

/**
 * The entries the default view's cap left out of not_runnable (core/frontier-codes.ts NOT_RUNNABLE_SHOWN),
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
  /** Per entry left out, its order key (read one at a time: cut-columns.ts). */
  keys: FixedStrings;
  /** Per entry left out, its code (what by_code counts it under, when a patch moves it). */
  codes: CodeColumn;
  /**
   * Per entry left out, three numbers at 3n: listing number, position in it, priority hash. Numbers,
   * not an array per entry: a patch copies them by ranges (some 10,000 entries at 50,000 items).
   */
  nums: Float64Array;
}

/** The entries left out as arrays (an evaluation's). */
export interface CutRows {
  keys: string[];
  codes: string[];
  nums: Float64Array;
}

/** The cut of these rows; null when a key cannot be kept (FixedStrings.of): the cut is then not stored. */
export function cutOfRows(rows: CutRows): CutIndex | null {
  const keys = FixedStrings.of(rows.keys);
  return keys && { keys, codes: CodeColumn.of(rows.codes), nums: rows.nums };
}

/** No entry left out. */
export const emptyCut = (): CutIndex => cutOfRows({ keys: [], codes: [], nums: new Float64Array(0) })!;

/**
 * A cut made of ranges of another (`from`: copied as they are, natively) and single entries, in the
 * order they are put: what a patch (frontier-patch-parts.ts CutBuilder) and a change of order
 * (inKeyOrder) make.
 */
export class CutPieces {
  private keys: FixedStrings[] = [];
  private codes: CodeColumn[] = [];
  private nums: Float64Array[] = [];
  constructor(private from: CutIndex) {}

  /** Entries a to b (not b) of `from`. */
  range(a: number, b: number): void {
    if (b <= a) return;
    this.keys.push(this.from.keys.slice(a, b));
    this.codes.push(this.from.codes.slice(a, b));
    this.nums.push(this.from.nums.subarray(3 * a, 3 * b));
  }

  /** One entry; false when its key cannot be kept (FixedStrings.of). */
  one(key: string, code: string, nums: readonly number[]): boolean {
    const k = FixedStrings.of([key], this.from.keys.width);
    if (!k) return false;
    this.keys.push(k);
    this.codes.push(CodeColumn.of([code]));
    this.nums.push(Float64Array.from(nums));
    return true;
  }

  done(): CutIndex {
    const nums = new Float64Array(this.nums.reduce((n, x) => n + x.length, 0));
    this.nums.reduce((at, x) => (nums.set(x, at), at + x.length), 0);
    return { keys: FixedStrings.concat(this.keys), codes: CodeColumn.concat(this.codes, this.from.codes.list), nums };
  }
}

/** Where each not_runnable entry is, as the shown ones are told (`where`: listing * 2^32 + position). */
export function cutIndexOf(keys: string[], codes: string[], where: number[], snapshots: Titled[]): CutIndex | null {
  const nums = new Float64Array(3 * keys.length);
  for (let n = 0; n < keys.length; n++) {
    const k = Math.floor(where[n] / 2 ** 32);
    const i = where[n] % 2 ** 32;
    nums[3 * n] = k;
    nums[3 * n + 1] = i;
    nums[3 * n + 2] = snapshots[k].prios[i];
  }
  return cutOfRows({ keys, codes, nums });
}

/** Where the entry left out of the file at position i of listing k is in the cut (n), or -1. */
export function cutPlace(cut: CutIndex, k: number, i: number): number {
  const { nums } = cut;
  for (let p = nums.indexOf(i, 1); p >= 0; p = nums.indexOf(i, p + 1)) if (p % 3 === 1 && nums[p - 1] === k) return (p - 1) / 3;
  return -1;
}

/**
 * The stored form (after its lineage line): a JSON line `[count, width, codes]` (the slot width of the
 * keys, the distinct codes), then per entry its three numbers (64-bit floats), then per entry the
 * place of its code in that list (16-bit), then the keys in their slots (cut-columns.ts). Read as views
 * of the file's bytes and written as they are: a patch copies ranges of them, it never parses nor
 * prints 10,000 keys (as one JSON line, those cost a patch at 50,000 items some 5 ms).
 */
export function parseCut(buf: Buffer): CutIndex | null {
  try {
    const nl = buf.indexOf(10);
    if (nl < 0) return null;
    const line = JSON.parse(buf.toString('utf8', 0, nl)) as unknown;
    if (!Array.isArray(line) || line.length !== 3) return null;
    const [count, width, list] = line as unknown[];
    if (!Number.isInteger(count) || (count as number) < 0 || !widthOk(width) || !Array.isArray(list) || !list.every((c) => typeof c === 'string')) return null;
    const n = count as number;
    const numsAt = nl + 1;
    const idxAt = numsAt + 24 * n;
    const keysAt = idxAt + 2 * n;
    if (buf.length !== keysAt + n * width) return null;
    return {
      keys: new FixedStrings(buf.subarray(keysAt), width),
      codes: new CodeColumn(list as string[], alignedView(Uint16Array, buf, idxAt, n)),
      nums: alignedView(Float64Array, buf, numsAt, 3 * n),
    };
  } catch {
    return null;
  }
}

/** The stored form as bytes, the numbers 8-aligned in the file (`before`: the bytes before it there). */
export function cutParts(cut: CutIndex, before = 0): Buffer[] {
  const { nums, codes, keys } = cut;
  const bytes = (a: Float64Array | Uint16Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  return [alignedLine(JSON.stringify([keys.length, keys.width, codes.list]), before), bytes(nums), bytes(codes.idx), keys.blob];
}

export interface CutCheck {
  /** The last entry not_runnable shows, read from the answer's text (null when it is not where the index says). */
  lastShown: () => FrontierEntry | null;
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
  const e = x.lastShown();
  if (!e) return null;
  const bound = entryOrderKey(e, x.holder);
  const changed = new Map<number, string>();
  const numsNow = nums.slice();
  for (const n of moved) {
    const k = nums[3 * n];
    const i = nums[3 * n + 1];
    const l = x.listings[k];
    const name = l.nameAt(i);
    const id = name.slice(0, -3);
    const shown = readShown(join(workDir(home, l.agent), name), id);
    // Changed again since the snapshot was taken: evaluate again rather than mix the two.
    if (!shown || prioHash(id, shown.priority) !== x.snaps[k].prios[i]) return null;
    const now = keyWithPriority(cut.keys.at(n)!, shown.priority);
    if (now < bound) return null;
    changed.set(n, now);
    numsNow[3 * n + 2] = x.snaps[k].prios[i];
  }
  return inKeyOrder(cut, changed, numsNow);
}

/**
 * The cut in key order again after the keys at the places `changed` names changed (the others were in
 * order, and keep theirs), with the numbers `nums`: each changed entry is put at its key's place by a
 * binary search over the others (a few keys decoded), and the rest is copied by ranges (native copies:
 * decoding 10,000 keys to sort them cost 10 ms at 50,000 items). Null when a new key cannot be kept
 * (FixedStrings.of).
 */
export function inKeyOrder(cut: CutIndex, changed: ReadonlyMap<number, string>, nums: Float64Array): CutIndex | null {
  const n = cut.keys.length;
  const moved = [...changed.keys()].sort((a, b) => a - b);
  /** The place in the cut of the entry of rank r among those not moved. */
  const placeOf = (r: number) => moved.reduce((p, m) => (m <= p ? p + 1 : p), r);
  const rest = n - moved.length;
  const ins = moved.map((m) => {
    const key = changed.get(m)!;
    let lo = 0;
    for (let hi = rest; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if (cut.keys.at(placeOf(mid))! < key) lo = mid + 1;
      else hi = mid;
    }
    return { m, key, at: lo };
  }).sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : 1));
  const out = new CutPieces({ ...cut, nums });
  let next = 0;
  /** The moved entries whose place comes before the entry of rank r not moved. */
  const putMoved = (r: number) => {
    for (; next < ins.length && ins[next].at <= r; next++) {
      const { m, key } = ins[next];
      if (!out.one(key, cut.codes.at(m)!, [...nums.subarray(3 * m, 3 * m + 3)])) return false;
    }
    return true;
  };
  // The entries not moved lie in runs between the moved ones; run j's entries have j moved ones before them.
  for (let j = 0; j <= moved.length; j++) {
    const b = j < moved.length ? moved[j] : n;
    for (let p = j ? moved[j - 1] + 1 : 0; p < b;) {
      if (!putMoved(p - j)) return null;
      const q = next < ins.length ? Math.min(b, ins[next].at + j) : b;
      out.range(p, q);
      p = q;
    }
  }
  return putMoved(Infinity) ? out.done() : null;
}
