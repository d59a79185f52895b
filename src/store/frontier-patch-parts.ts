import { entryOrderKey, type FrontierEntry } from '../core/frontier.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { cycleNode, evaluatedFor } from '../core/frontier-reads.js';
import type { WorkItem } from '../core/types.js';
import { cutPlace, CutPieces, type CutIndex } from './frontier-cut.js';
import type { DepIndex, DepRow } from './frontier-deps.js';
import { prioHash, titleHash } from './graph-entry.js';
import { prioOf, titleOf, type Titled } from './stat-index.js';
import type { TitleIndex } from './frontier-titles.js';
import { PER } from './frontier-entry-text.js';
import type { Listing } from './work-listing.js';
import { trace } from './trace.js';

/** The parts of a verdict patch (frontier-patch.ts) that read files or build its read index. */

const NR = CHANNELS.indexOf('not_runnable');

/** A new verdict: an entry (with its key), closed (its code), or none (another agent's item). */
export type Judged = { e: FrontierEntry; key: string; channel: number } | { closed: string } | null;

export class Unpatchable extends Error {}
/** Stops the patch (the answer is evaluated in full), saying why in the trace. */
export function give(why = 'the answer is not as expected'): never {
  throw new Unpatchable(why);
}

/**
 * What `f` gives, or null when it gives up or fails, saying why in the trace (`frontier: WHAT (why)`):
 * anything unforeseen (a bug in a patch included) costs an evaluation, never a wrong answer or a failed command.
 */
export function orEvaluate<T>(what: string, f: () => T): T | null {
  try {
    return f();
  } catch (err) {
    trace(`frontier: ${what} (${err instanceof Unpatchable ? err.message : `error: ${(err as Error).message}`})`);
    return null;
  }
}

/** The read index after the patch: the new reads, and the changed items' own facts. */
export function nextDeps(deps: DepIndex, fresh: Map<string, WorkItem>, where: Map<string, [number, number]>, listings: Listing[], agent: string, reads: Map<string, string[]>, cut: Pick<DepIndex, 'cutEntries'>): DepIndex {
  const next = new Map<string, DepRow>();
  const rowOf = (id: string) => {
    let row = next.get(id);
    if (!row) next.set(id, (row = { ...(deps.rows.get(id) ?? { deps: null, reads: [], at: null }) }));
    return row;
  };
  for (const [id, read] of reads) {
    const row = rowOf(id);
    row.reads = read;
    const w = read.length ? where.get(id)! : null;
    row.at = w ? w[0] * 2 ** 32 + w[1] : null;
  }
  const odd = new Set(deps.odd);
  const superseded = new Set(deps.superseded);
  for (const [id, item] of fresh) {
    const row = rowOf(id);
    const mine = evaluatedFor(item, agent);
    // Closed now, or another agent's: it reads nothing any more.
    if (!mine || item.status === 'done' || item.superseded_by) {
      row.reads = [];
      row.at = null;
    }
    row.deps = cycleNode(item) ? item.depends_on.join('\n') : null;
    if (mine !== (listings[where.get(id)![0]].agent === agent)) odd.add(id);
    else odd.delete(id);
    if (mine && item.superseded_by && item.status !== 'done') superseded.add(id);
    else superseded.delete(id);
  }
  return { special: deps.special, superseded: [...superseded], odd: [...odd], ...cut, rows: deps.rows.with(next) };
}

/**
 * A special entry kept from the cut, as it would be shown: only while the title and priority it holds
 * are its file's (a title patched where the answer does not show it is not written into it).
 */
export function keptEntry(e: FrontierEntry, snap: Titled, i: number, holder: string): Judged {
  if (titleHash(e.id, e.title) !== titleOf(snap, i) || prioHash(e.id, e.priority) !== prioOf(snap, i)) give('an entry left out has a new title');
  return { e, key: entryOrderKey(e, holder), channel: NR };
}

export function sortedCodes(byCode: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(byCode).sort()) if (byCode[k] > 0) out[k] = byCode[k];
  return out;
}

/**
 * Where each affected item is shown in the answer (channel, index in it), by where their files are
 * (per listing, by position: small integers, where a Map keyed by listing * 2^32 + position hashes
 * doubles once per entry shown), with the first entry of each channel. An entry whose title or
 * priority is not its file's (a patch that never got stored) is affected too: added to `affected`
 * and `where`.
 */
export function shownAffected(index: TitleIndex, snaps: Titled[], listings: Listing[], affected: Set<string>, where: Map<string, [number, number]>, asFound: boolean) {
  // The answer's entries are matched by number, and a name is looked up only for what is found.
  const byPos = listings.map(() => new Map<number, string>());
  for (const id of affected) {
    const [k, i] = where.get(id)!;
    byPos[k].set(i, id);
  }
  const q = index.quads;
  const shownAt = new Map<string, [number, number]>();
  const starts: number[] = [];
  let first = 0;
  for (let c = 0; c < CHANNELS.length; c++) {
    starts.push(first);
    first += index.channels[c][0];
  }
  const shown = (id: string, c: number, j: number) => {
    if (shownAt.has(id)) give('an entry is shown twice');
    affected.add(id);
    shownAt.set(id, [c, j]);
  };
  // The snapshot as this command found it has the sums the index was made with (`asFound`): then every
  // file's title and priority hashes are the ones its entries hold (sums of random 52-bit hashes, as
  // frontier-titles.ts compares them), and only the affected need finding, by a native search of the
  // index's numbers rather than a look at each of the 25,000 entries shown at 50,000 items.
  if (asFound) {
    for (const id of affected) {
      const [k, i] = where.get(id)!;
      for (let p = q.indexOf(i, 1); p >= 0; p = q.indexOf(i, p + 1)) {
        if (p % PER !== 1 || q[p - 1] !== k) continue;
        const g = (p - 1) / PER;
        let c = CHANNELS.length - 1;
        while (starts[c] > g) c--;
        shown(id, c, g - starts[c]);
      }
    }
  } else {
    for (let c = 0; c < CHANNELS.length; c++) {
      for (let j = 0; j < index.channels[c][0]; j++) {
        const n = PER * (starts[c] + j);
        const k = q[n];
        const i = q[n + 1];
        if (!snaps[k] || !(i < snaps[k].titles.length)) give('an entry is not where the index says');
        const found = byPos[k]?.get(i);
        if (found !== undefined || snaps[k].titles[i] !== q[n + 2] || snaps[k].prios[i] !== q[n + 3]) {
          const id = found ?? listings[k].nameAt(i).slice(0, -3);
          shown(id, c, j);
          where.set(id, [k, i]);
        }
      }
    }
  }
  return { byPos, shownAt, starts };
}

export const posCode = (k: number, i: number) => k * 2 ** 32 + i;

/** A run of a channel being rebuilt: its kind and a range [from, to) of old entries, entries left out, or new ones (`added`). */
export type Seg = [kind: number, from: number, to: number];
export const OLD = 0;
export const LEFT = 1;
export const NEW = 2;

/** The ranges of [0, n) that the positions in `gone` leave. */
export function runsWithout(kind: number, n: number, gone: number[]): Seg[] {
  const segs: Seg[] = [];
  let from = 0;
  for (const j of [...gone].sort((a, b) => a - b)) {
    if (j > from) segs.push([kind, from, j]);
    from = Math.max(from, j + 1);
  }
  if (n > from) segs.push([kind, from, n]);
  return segs;
}

/**
 * The cut after the patch, made of ranges of the one before (copied as they are) and single entries
 * (CutPieces), with the special entries it keeps the text of.
 */
export class CutBuilder {
  private pieces: CutPieces;
  private entries: Record<string, FrontierEntry> = {};
  /** The special entries kept in the cut before (deps.cutEntries), by their place in it. */
  private specials: Array<[number, string]>;
  constructor(was: CutIndex, private deps: DepIndex) {
    this.pieces = new CutPieces(was);
    this.specials = Object.keys(deps.cutEntries).map((code) => [cutPlace(was, Math.floor(Number(code) / 2 ** 32), Number(code) % 2 ** 32), code]);
  }

  /** Entries a to b (not b) of the cut before, still left out. */
  range(a: number, b: number): void {
    if (b <= a) return;
    this.pieces.range(a, b);
    for (const [m, code] of this.specials) if (m >= a && m < b) this.entries[code] = this.deps.cutEntries[code];
  }

  /** One entry left out now (with its text, kept where it is a special item's). */
  one(k: number, i: number, prio: number, key: string, code: string, entry: FrontierEntry | null): void {
    if (!this.pieces.one(key, code, [k, i, prio])) give('a key cannot be kept in the cut (not UTF-8, or too long)');
    if (entry) this.entries[posCode(k, i)] = entry;
  }

  done(): { cut: CutIndex; entries: Record<string, FrontierEntry> } {
    return { cut: this.pieces.done(), entries: this.entries };
  }
}
