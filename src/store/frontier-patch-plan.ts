import { CHANNELS } from '../core/frontier-codes.js';
import { cycleNode, specialItem } from '../core/frontier-reads.js';
import type { WorkItem } from '../core/types.js';
import { cutPlace, emptyCut, type CutIndex } from './frontier-cut.js';
import type { DepIndex } from './frontier-deps.js';
import type { FrontierHeader } from './frontier-files.js';
import type { TitleIndex } from './frontier-titles.js';
import type { Entry } from './graph-entry.js';
import { itemOf } from './graph-slim.js';
import type { Home } from './home.js';
import type { AnswerText } from './answer-text.js';
import { snapshotSig, type Titled } from './stat-index.js';
import { sameNames, type Listing } from './work-listing.js';
import { give, shownAffected, type Judged } from './frontier-patch-parts.js';
import { verdictJudge } from './frontier-patch-judge.js';

/**
 * What a verdict patch (frontier-patch.ts) re-evaluates, and where those items stand in the answer:
 * the changed items and the items that read them, evaluated again. Both the whole patch and a pick's
 * look at the top of runnable alone (frontier-patch-head.ts) start from it, so both give up on the same
 * grounds (Unpatchable, thrown by give).
 */

const MAX_CHANGED = 16;
const MAX_AFFECTED = 200;
export const NR = CHANNELS.indexOf('not_runnable');

export interface PatchInput {
  agent: string;
  holder: string;
  nowMs: number;
  cwd: string;
  /** The answer's text (after its token line): whole for a patch, its start for patchedHead. */
  text: Buffer;
  /**
   * For a patch: the answer read where it is used instead (store/answer-text.ts), its parts then ranges
   * of its file past what was read; `text` is then its start.
   */
  src?: AnswerText;
  header: FrontierHeader;
  index: TitleIndex;
  cut: CutIndex | null;
  deps: DepIndex;
  listings: Listing[];
  snapshots: Record<string, Titled>;
  /** Per listing, the files whose entries changed since the answer's snapshot (quickDigest). */
  changed: Array<Array<[number, Entry]>>;
  /**
   * Whether each snapshot, as the command found it (before the changed files were read again), has the
   * title and priority sums the index was made with (ops/frontier.ts; its digest is the answer's).
   */
  asFound: boolean;
  /** How many not_runnable entries the answer shows (ops/frontier.ts NOT_RUNNABLE_SHOWN). */
  cap: number;
}

export type PatchPlan = ReturnType<typeof planPatch>;

/**
 * The changed items (`fresh`) and their readers (`affected`, with `where` each one's file is), each
 * evaluated again (`judged`); which of them the answer shows (`shownAt`: channel and place) or its cap
 * left out (`cutAt`). Throws Unpatchable where a patch could be wrong (frontier-patch.ts says when).
 */
export function planPatch(home: Home, x: PatchInput) {
  const { agent, holder, index, deps, listings } = x;
  if (index.listings.length !== listings.length) give('other listings');
  const snaps = listings.map((l, k) => {
    const snap = x.snapshots[l.agent];
    const was = index.listings[k];
    if (was.agent !== l.agent || !snap || !sameNames(snap, l) || was.sig !== snapshotSig(snap)) give('other listings');
    return snap;
  });
  // Only not_runnable is ever cut in the default view.
  if (index.channels.some(([, cut], c) => cut > 0 && c !== NR)) give('a channel other than not_runnable is cut');
  const cutWas = x.cut ?? emptyCut();
  if (cutWas.keys.length !== index.channels[NR][1] || cutWas.codes.length !== cutWas.keys.length || cutWas.nums.length !== 3 * cutWas.keys.length) give('the entries left out are not known');

  const special = new Set(deps.special);
  const fresh = new Map<string, WorkItem>();
  const where = new Map<string, [number, number]>();
  let changedFiles = 0;
  listings.forEach((l, k) => {
    for (const [i, e] of x.changed[k] ?? []) {
      if (++changedFiles > MAX_CHANGED) give('too many files changed');
      if (!e[1]) give('a record does not parse');
      const id = l.nameAt(i).slice(0, -3);
      const item = itemOf(e[1] as Exclude<Entry[1], 0>, id, l.agent);
      if (special.has(id) || specialItem(item) || fresh.has(id)) give(`${id} is a gate, has a write scope, a role or exclusions`);
      if (cycleNode(item) && (deps.rows.get(id)?.deps ?? undefined) !== item.depends_on.join('\n')) give(`${id} has new dependencies`);
      fresh.set(id, item);
      where.set(id, [k, i]);
    }
  });
  if (!fresh.size) give('nothing changed');
  const affected = new Set(fresh.keys());
  const readers = deps.rows.readersOf(fresh.keys(), MAX_AFFECTED) ?? give('too many items read what changed');
  for (const [reader, at] of readers) {
    if (special.has(reader)) give(`${reader}, which reads a changed item, is a gate or needs one`);
    if (at === null) give('a reader is not where the index says');
    affected.add(reader);
    where.set(reader, [Math.floor(at / 2 ** 32), at % 2 ** 32]);
  }
  const { byPos, shownAt, starts } = shownAffected(index, snaps, listings, affected, where, x.asFound);
  const cutAt = new Map<string, number>();
  const cutN = cutWas.keys.length;
  const leftOut = (id: string, m: number, k: number, i: number) => {
    if (shownAt.has(id) || cutAt.has(id)) give('an entry is shown twice');
    affected.add(id);
    cutAt.set(id, m);
    where.set(id, [k, i]);
  };
  if (x.asFound) {
    // Only the changed files can differ from what the cut holds (shownAffected says why): each affected
    // one found by a native search of its numbers.
    byPos.forEach((at, k) => at.forEach((id, i) => {
      const m = cutPlace(cutWas, k, i);
      if (m >= 0) leftOut(id, m, k, i);
    }));
  } else {
    const nums = cutWas.nums;
    for (let m = 0; m < cutN; m++) {
      const k = nums[3 * m];
      const i = nums[3 * m + 1];
      if (!snaps[k] || !(i < snaps[k].prios.length)) give('an entry left out is not where the index says');
      const found = byPos[k]?.get(i);
      if (found !== undefined || snaps[k].prios[i] !== nums[3 * m + 2]) leftOut(found ?? listings[k].nameAt(i).slice(0, -3), m, k, i);
    }
  }
  if (affected.size > MAX_AFFECTED) give('too many items read what changed');
  // A reader is in the answer, shown or left out (a changed item may be closed, or another agent's).
  for (const id of affected) if (!shownAt.has(id) && !cutAt.has(id) && !fresh.has(id)) give('an item is not in the answer');

  // The affected items evaluated again, each reading the items it names from their files.
  const { judge, reads, used, bounds } = verdictJudge(home, { agent, holder, nowMs: x.nowMs, cwd: x.cwd, listings, fresh });
  const judged = new Map<string, Judged>();
  for (const id of affected) judged.set(id, judge(id));

  // Git or the checkout looked at where the answer did not: its header could not vouch for them.
  if (used.unknownCommits.length || (used.head !== undefined && !x.header.git)) give('git was asked');
  return { snaps, special, fresh, where, affected, byPos, shownAt, starts, cutWas, cutAt, cutN, judge, judged, reads, used, bounds };
}
