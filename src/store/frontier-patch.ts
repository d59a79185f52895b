import { entryOrderKey, type FrontierEntry } from '../core/frontier.js';
import { iso } from '../core/time.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { indented } from '../core/json-parts.js';
import type { DepIndex } from './frontier-deps.js';
import { blockOf, channelLayouts, entryIn, HEAD_MAX, PER, runIn, shownId } from './frontier-entry-text.js';
import type { TitleIndex } from './frontier-titles.js';
import { addHash, subHash } from './graph-entry.js';
import type { FrontierHeader } from './frontier-files.js';
import type { Home } from './home.js';
import { CutBuilder, give, keptEntry, LEFT, NEW, nextDeps, OLD, orEvaluate, posCode, runsWithout, sortedCodes, type Seg } from './frontier-patch-parts.js';
import { answerHead } from './frontier-patch-judge.js';
import { bufferText, type Part } from './answer-text.js';
import { NR, planPatch, type PatchInput, type PatchPlan } from './frontier-patch-plan.js';
import { prioOf, titleOf } from './stat-index.js';

/**
 * A cached answer brought up to date after a change of a few items (a `complete`, a claim, a wait)
 * without loading the graph: the changed items and the items whose verdicts read them (frontier-deps.ts)
 * are evaluated again, each against the items it reads, parsed from their files; every other verdict
 * is the answer's, since nothing it read changed (the graph digest, the clock window, the checkout and
 * the events are checked before this, ops/frontier.ts). Their entries are taken out of the answer's
 * text and the new ones put in at their place in frontier order (entryOrderKey), counts and by_code
 * moved by the difference, and the title index, the entries the not_runnable cap leaves out and the
 * read index made to match.
 *
 * Null, and the answer is evaluated in full, whenever this could be wrong or is not worth it: a
 * special item changed (a gate, a write scope, a role, an exclusion: their effect reaches past their
 * readers), a live item got dependencies it did not have (a cycle could close), a record does not
 * parse, more than MAX_CHANGED files or MAX_AFFECTED items, an evaluation that would look at git or
 * the checkout where the answer did not, or anything in the answer not where it is expected.
 * test/cli/frontier-patch.test.ts compares the result with a full evaluation after each kind of change.
 */

const PROBLEMS_END = Buffer.from('\n  "problems": []\n}');
const TRUNCATED = Buffer.from('\n  "truncated": ');
const COMMA = Buffer.from(',\n');

export interface VerdictPatch {
  /** The new answer's text; ranges of the old one's file where it was read through `src`. */
  parts: Part[];
  index: TitleIndex;
  deps: DepIndex;
  header: Omit<FrontierHeader, 'v' | 'token' | 'fp' | 'gfp' | 'lineage'>;
  /** How many items were evaluated again. */
  evaluated: number;
}

/** `plan`: one made already for the same input (a pick's top, frontier-patch-head.ts), so both agree. */
export const patchVerdicts = (home: Home, x: PatchInput, plan?: PatchPlan): VerdictPatch | null => orEvaluate('not patched', () => patch(home, x, plan));

function patch(home: Home, x: PatchInput, plan = planPatch(home, x)): VerdictPatch {
  const { agent, holder, index, deps, listings } = x;
  const src = x.src ?? bufferText(x.text);
  if (!src.bytes(src.length - PROBLEMS_END.length, src.length).equals(PROBLEMS_END)) give('the answer lists problem records');
  const { snaps, special, fresh, where, affected, shownAt, starts, cutWas, cutAt, cutN, judge, judged, reads, used, bounds } = plan;
  const q = index.quads;

  // The answer's head and counts, moved by the difference.
  const { head, headEnd } = answerHead(src.bytes(0, HEAD_MAX));
  // Each channel laid out after the one before, from the head on (its line is checked, no search).
  const lays = channelLayouts(src, headEnd, index.channels, q) ?? give('a channel is not where it is expected');
  const marks = [headEnd, ...lays.map((lay) => lay.next)];
  if (!src.bytes(marks[CHANNELS.length], marks[CHANNELS.length] + TRUNCATED.length).equals(TRUNCATED)) give('the channels are not where they are expected');
  const idAt = (c: number, j: number) => shownId(listings, q, PER * (starts[c] + j));
  const oldEntry = (c: number, j: number) => entryIn(src, lays[c], j, idAt(c, j)) ?? give('an entry is not where the index says');
  const counts = head.counts;
  const byCode = counts.by_code;
  const move = (channel: string, code: string, by: number) => {
    counts[channel] += by;
    byCode[code] = (byCode[code] ?? 0) + by;
    counts.total += by;
  };
  const oddWas = new Set(deps.odd);
  const supersededWas = new Set(deps.superseded);
  for (const id of affected) {
    const at = shownAt.get(id);
    const m = cutAt.get(id);
    if (at) move(CHANNELS[at[0]], oldEntry(at[0], at[1]).code, -1);
    else if (m !== undefined) move('not_runnable', cutWas.codes.at(m) ?? give('the code of an entry left out is not known'), -1);
    else if (!fresh.has(id)) give('an item is not in the answer');
    else {
      // Not shown: closed, or not evaluated for this agent.
      const [k] = where.get(id)!;
      if ((listings[k].agent === agent) !== oddWas.has(id)) move('closed', supersededWas.has(id) ? 'superseded' : 'status_done', -1);
    }
    const now = judged.get(id)!;
    if (now && 'closed' in now) move('closed', now.closed, 1);
    else if (now) move(CHANNELS[now.channel], now.e.code, 1);
  }

  // Each channel rebuilt: its old members less the affected, the new entries put in at their keys.
  const keys = new Map<string, string>();
  const codes = new Map<string, string>();
  const added: string[] = [];
  const keyOf = (c: number, s: Seg, n: number): string => {
    if (s[0] === NEW) return (judged.get(added[n]) as { key: string }).key;
    if (s[0] === LEFT) return cutWas.keys.at(n) ?? give('an entry left out is not known');
    const tag = `${c}:${n}`;
    let key = keys.get(tag);
    if (key === undefined) {
      const e = oldEntry(c, n);
      codes.set(tag, e.code);
      keys.set(tag, (key = entryOrderKey(e, holder)));
    }
    return key;
  };
  const parts: Part[] = [];
  // At most every old entry, each affected one and each one brought into view from the cut.
  const quads = new Float64Array(q.length + PER * 2 * affected.size);
  let qn = 0;
  /** The numbers of `n` entries of the old answer, from its entry `at` on, as they were. */
  const keepQuads = (at: number, n: number) => {
    quads.set(q.subarray(PER * at, PER * (at + n)), qn);
    qn += PER * n;
  };
  const channels: Array<[number, number]> = [];
  const cut = new CutBuilder(cutWas, deps);
  // Per listing, the priority sum of the entries shown (of the hashes their numbers hold: each kept
  // entry's is its file's, or it would be affected), moved by the entries that leave and come: a loop
  // over every entry shown cost 1-2 ms at 10,000 to 50,000 items. The index's `hidden` is the sum of
  // the rest of the files, against its `prios` (frontier-titles.ts hiddenSums).
  const shownSum = index.listings.map((x) => subHash(x.prios, x.hidden));
  const leaves = (n: number) => {
    shownSum[q[n]] = subHash(shownSum[q[n]], q[n + 3]);
  };
  // The affected entries shown, per channel (an entry shown twice gave up above).
  const shownGone = CHANNELS.map(() => [] as number[]);
  for (const [c, j] of shownAt.values()) {
    shownGone[c].push(j);
    leaves(PER * (starts[c] + j));
  }
  const cutGone = [...cutAt.values()];
  const promoted = new Map<string, { e: FrontierEntry; key: string }>();
  const touched = CHANNELS.map((_, c) => c === NR ? cutAt.size > 0 : false);
  for (const [c] of shownAt.values()) touched[c] = true;
  for (const now of judged.values()) if (now && 'e' in now) touched[now.channel] = true;
  parts.push(Buffer.from(JSON.stringify({ ...head, now: iso(x.nowMs), counts: { ...counts, by_code: sortedCodes(byCode) } }, null, 2).slice(0, -2)));
  for (let c = 0; c < CHANNELS.length; c++) {
    const count = index.channels[c][0];
    const name = CHANNELS[c];
    if (!touched[c]) {
      parts.push(COMMA, ...src.parts(marks[c] + 1, marks[c + 1] - 1));
      keepQuads(starts[c], count);
      channels.push([count, index.channels[c][1]]);
      if (c === NR) cut.range(0, cutN);
      continue;
    }
    // The channel as runs: its old entries less the affected (and, for not_runnable, the entries left
    // out after them), each new entry put in at its key by a binary search over the runs.
    const segs = runsWithout(OLD, count, shownGone[c]);
    if (c === NR) segs.push(...runsWithout(LEFT, cutN, cutGone));
    let total = segs.reduce((n, s) => n + s[2] - s[1], 0);
    const at = (v: number): [number, number] => {
      for (let r = 0; r < segs.length; r++) {
        const len = segs[r][2] - segs[r][1];
        if (v < len) return [r, segs[r][1] + v];
        v -= len;
      }
      return [segs.length, 0];
    };
    for (const [id, now] of judged) {
      if (!now || !('e' in now) || now.channel !== c) continue;
      let lo = 0;
      let hi = total;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const [r, n] = at(mid);
        if (keyOf(c, segs[r], n) < now.key) lo = mid + 1;
        else hi = mid;
      }
      const [r, n] = at(lo);
      const s: Seg = [NEW, added.push(id) - 1, added.length];
      if (r === segs.length || n === segs[r][1]) segs.splice(r, 0, s);
      else segs.splice(r, 1, [segs[r][0], segs[r][1], n], s, [segs[r][0], n, segs[r][2]]);
      total++;
    }
    const shown = c === NR ? Math.min(total, x.cap) : total;
    const out: Part[] = [];
    let pos = 0;
    for (const s of segs) {
      const [kind, a, b] = s;
      const upTo = Math.min(b, a + Math.max(0, shown - pos));
      pos += b - a;
      if (kind === OLD && upTo > a) {
        // A run of old entries in a row: one slice of the old text, one copy of their numbers.
        if (!runIn(src, lays[c], a, upTo - 1)) give('an entry is not where the index says');
        out.push(...src.parts(lays[c].at[a], lays[c].at[upTo] - 2), COMMA);
        keepQuads(starts[c] + a, upTo - a);
      }
      for (let n = a; n < upTo && kind !== OLD; n++) {
        let e: FrontierEntry;
        let id: string;
        if (kind === NEW) {
          id = added[n];
          e = (judged.get(id) as { e: FrontierEntry }).e;
        } else {
          // Left out before, shown now: its verdict is the answer's (nothing it read changed).
          const k = cutWas.nums[3 * n];
          const i = cutWas.nums[3 * n + 1];
          id = listings[k].nameAt(i).slice(0, -3);
          where.set(id, [k, i]);
          const kept = deps.cutEntries[posCode(k, i)];
          const now = kept ? keptEntry(kept, snaps[k], i, holder) : judge(id);
          if (!now || !('e' in now) || now.channel !== NR || now.key !== cutWas.keys.at(n)) give('an entry left out is not what it was');
          e = (now as { e: FrontierEntry }).e;
          promoted.set(id, now as { e: FrontierEntry; key: string });
        }
        const block = blockOf(e);
        const [k, i] = where.get(id) ?? give('an entry is not placed');
        quads.set([k, i, titleOf(snaps[k], i), prioOf(snaps[k], i), block.length], qn);
        qn += PER;
        shownSum[k] = addHash(shownSum[k], prioOf(snaps[k], i));
        out.push(block, COMMA);
      }
      // Past the cap: into the cut.
      if (kind === LEFT) cut.range(upTo, b);
      for (let n = upTo; n < b && kind !== LEFT; n++) {
        if (kind === OLD) {
          const m = PER * (starts[c] + n);
          leaves(m);
          const key = keyOf(c, s, n);
          cut.one(q[m], q[m + 1], q[m + 3], key, codes.get(`${c}:${n}`)!, special.has(idAt(c, n)) ? oldEntry(c, n) : null);
        } else {
          const id = added[n];
          const now = judged.get(id) as { e: FrontierEntry; key: string };
          const [k, i] = where.get(id)!;
          cut.one(k, i, prioOf(snaps[k], i), now.key, now.e.code, null);
        }
      }
    }
    out.pop();
    parts.push(Buffer.from(`,\n  ${JSON.stringify(name)}: ${shown ? '[\n' : '[]'}`), ...out, ...(shown ? [Buffer.from('\n  ]')] : []));
    channels.push([shown, total - shown]);
  }
  const left = channels[NR][1];
  parts.push(Buffer.from(`,\n  "truncated": ${indented(JSON.stringify(left ? { not_runnable: left } : {}, null, 2), '  ')},`), PROBLEMS_END);

  const h = x.header;
  const from = Math.max(h.from ?? -Infinity, bounds.from);
  const until = Math.min(h.until ?? Infinity, bounds.until);
  const header = {
    from: Number.isFinite(from) ? from : null, until: Number.isFinite(until) ? until : null,
    workspace: h.workspace ?? used.workspace, events: { ...used.eventSigs, ...h.events }, now: iso(x.nowMs),
    spending: h.spending ?? used.spendingSig, git: h.git ?? null,
  };

  const quadArray = quads.subarray(0, qn);
  const hidden = snaps.map((x, k) => subHash(x.sums[2], shownSum[k]));
  const built = cut.done();
  if (built.cut.keys.length !== left) give('the entries left out are not counted right');
  const newIndex: TitleIndex = {
    listings: index.listings.map((was, k) => ({ ...was, titles: snaps[k].sums[1], prios: snaps[k].sums[2], hidden: hidden[k] })),
    channels, quads: quadArray, cut: built.cut,
  };
  const depsNow = nextDeps(deps, fresh, where, listings, agent, reads, { cutEntries: built.entries });
  return { parts, index: newIndex, deps: depsNow, header, evaluated: judged.size + promoted.size };
}
