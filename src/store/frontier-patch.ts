import { entryOrderKey, frontierNow, type FrontierEntry } from '../core/frontier.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { cycleNode, specialItem } from '../core/frontier-reads.js';
import { indented } from '../core/json-parts.js';
import type { WorkItem } from '../core/types.js';
import type { CutIndex } from './frontier-cut.js';
import type { DepIndex } from './frontier-deps.js';
import { blockOf, channelText, entryAt, PER, type ChannelText } from './frontier-entry-text.js';
import { hiddenSums, type TitleIndex } from './frontier-titles.js';
import type { FrontierHeader } from './frontier-cache.js';
import type { Entry } from './graph-entry.js';
import { itemOf } from './graph-slim.js';
import type { Home } from './home.js';
import { snapshotSig, type Titled } from './stat-index.js';
import type { Listing } from './work-listing.js';
import { trace } from './trace.js';
import { give, keptEntry, nextDeps, shownAffected, sortedCodes, Unpatchable, type Judged } from './frontier-patch-parts.js';
import { answerHead, verdictJudge } from './frontier-patch-judge.js';

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

const MAX_CHANGED = 16;
const posCode = (k: number, i: number) => k * 2 ** 32 + i;
const MAX_AFFECTED = 200;
const NR = CHANNELS.indexOf('not_runnable');
const PROBLEMS_END = Buffer.from('\n  "problems": []\n}');

export interface PatchInput {
  agent: string;
  holder: string;
  nowMs: number;
  cwd: string;
  /** The answer's text (after its token line). */
  text: Buffer;
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

export interface VerdictPatch {
  parts: Buffer[];
  index: TitleIndex;
  deps: DepIndex;
  header: Omit<FrontierHeader, 'v' | 'token' | 'fp' | 'gfp' | 'lineage'>;
  /** How many items were evaluated again. */
  evaluated: number;
}


/**
 * A member of a channel being rebuilt, as a number (a channel of 25,000 entries is as many members:
 * objects for them were most of a patch's garbage): an old entry shown, its index j (0 <= j < CUT);
 * one the cap left out, CUT + its index in the cut; a new one, -1 - its index in `added`.
 */
type Member = number;
const CUT = 2 ** 30;


export function patchVerdicts(home: Home, x: PatchInput): VerdictPatch | null {
  try {
    return patch(home, x);
  } catch (err) {
    // Anything unforeseen (a bug here included) costs an evaluation, never a wrong answer or a failed command.
    trace(`frontier: not patched (${err instanceof Unpatchable ? err.message : `error: ${(err as Error).message}`})`);
    return null;
  }
}

function patch(home: Home, x: PatchInput): VerdictPatch {
  const { agent, holder, index, deps, listings, text } = x;
  if (index.listings.length !== listings.length) give('other listings');
  const snaps = listings.map((l, k) => {
    const snap = x.snapshots[l.agent];
    const was = index.listings[k];
    if (was.agent !== l.agent || !snap || snap.names !== l.joined || was.sig !== snapshotSig(snap)) give('other listings');
    return snap;
  });
  // Only not_runnable is ever cut in the default view; the answer lists no problem records.
  if (index.channels.some(([, cut], c) => cut > 0 && c !== NR)) give('a channel other than not_runnable is cut');
  const cutWas = x.cut?.entries ?? [];
  if (cutWas.length !== index.channels[NR][1]) give('the entries left out are not known');
  if (!text.subarray(text.length - PROBLEMS_END.length).equals(PROBLEMS_END)) give('the answer lists problem records');

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
  const q = index.quads;
  const { byPos, shownAt, starts } = shownAffected(index, snaps, listings, affected, where, x.asFound);
  const cutAt = new Map<string, number>();
  cutWas.forEach(([k, i, prio], m) => {
    if (!snaps[k] || !(i < snaps[k].prios.length)) give('an entry left out is not where the index says');
    const found = byPos[k]?.get(i);
    if (found !== undefined || snaps[k].prios[i] !== prio) {
      const id = found ?? listings[k].nameAt(i).slice(0, -3);
      if (shownAt.has(id) || cutAt.has(id)) give('an entry is shown twice');
      affected.add(id);
      cutAt.set(id, m);
      where.set(id, [k, i]);
    }
  });
  if (affected.size > MAX_AFFECTED) give('too many items read what changed');

  // The affected items evaluated again, each reading the items it names from their files.
  const { judge, reads, used, bounds } = verdictJudge(home, { agent, holder, nowMs: x.nowMs, cwd: x.cwd, listings, fresh });
  const judged = new Map<string, Judged>();
  for (const id of affected) judged.set(id, judge(id));

  // The answer's head and counts, moved by the difference.
  const { head, headEnd } = answerHead(text);
  const counts = head.counts;
  const byCode = counts.by_code;
  const move = (channel: string, code: string, by: number) => {
    counts[channel] += by;
    byCode[code] = (byCode[code] ?? 0) + by;
    counts.total += by;
  };
  const spans: Array<ChannelText | null> = CHANNELS.map(() => null);
  const spansOf = (c: number) => {
    if (!spans[c]) spans[c] = channelText(text, CHANNELS[c], index.channels[c][0], q, starts[c]) ?? give('a channel is not where it is expected');
    return spans[c]!;
  };
  const oldEntry = (c: number, j: number) => entryAt(text, spansOf(c).spans, j) ?? give('an entry does not parse');
  const oddWas = new Set(deps.odd);
  const supersededWas = new Set(deps.superseded);
  for (const id of affected) {
    const at = shownAt.get(id);
    const m = cutAt.get(id);
    if (at) move(CHANNELS[at[0]], oldEntry(at[0], at[1]).code, -1);
    else if (m !== undefined) move('not_runnable', deps.cutCodes[m] ?? give('the code of an entry left out is not known'), -1);
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
  const keyOf = (c: number, mem: Member): string => {
    if (mem < 0) return (judged.get(added[-1 - mem]) as { key: string }).key;
    if (mem >= CUT) return cutWas[mem - CUT][3];
    const tag = `${c}:${mem}`;
    let key = keys.get(tag);
    if (key === undefined) {
      const e = oldEntry(c, mem);
      codes.set(tag, e.code);
      keys.set(tag, (key = entryOrderKey(e, holder)));
    }
    return key;
  };
  const parts: Buffer[] = [];
  // At most every old entry, each affected one and each one brought into view from the cut.
  const quads = new Float64Array(q.length + PER * 2 * affected.size);
  let qn = 0;
  /** The numbers of `n` entries of the old answer, from its entry `at` on, as they were. */
  const keepQuads = (at: number, n: number) => {
    quads.set(q.subarray(PER * at, PER * (at + n)), qn);
    qn += PER * n;
  };
  const channels: Array<[number, number]> = [];
  const cutNow: CutIndex['entries'] = [];
  const cutCodes: string[] = [];
  const cutEntries: Record<string, FrontierEntry> = {};
  // The affected entries shown, per channel (an entry shown twice gave up above).
  const shownGone = CHANNELS.map(() => new Set<number>());
  for (const [c, j] of shownAt.values()) shownGone[c].add(j);
  const cutGone = new Set(cutAt.values());
  const promoted = new Map<string, { e: FrontierEntry; key: string }>();
  const touched = CHANNELS.map((_, c) => c === NR ? cutAt.size > 0 : false);
  for (const [c] of shownAt.values()) touched[c] = true;
  for (const now of judged.values()) if (now && 'e' in now) touched[now.channel] = true;
  // Each channel's mark searched for after the one before, past that channel's text where it is known:
  // never a scan of the megabytes of runnable at 50,000 items once per channel after it.
  const marks: number[] = [];
  for (let c = 0; c <= CHANNELS.length; c++) {
    const known = c > 0 ? spans[c - 1] : null;
    const from = c === 0 ? headEnd : Math.max(marks[c - 1] + 1, known?.end ?? 0);
    marks.push(text.indexOf(`\n  ${JSON.stringify(c < CHANNELS.length ? CHANNELS[c] : 'truncated')}: `, from));
  }
  for (let i = 1; i < marks.length; i++) if (marks[i] <= marks[i - 1] || text[marks[i] - 1] !== 0x2c) give('the channels are not where they are expected');
  parts.push(Buffer.from(JSON.stringify({ ...head, now: frontierNow(x.nowMs), counts: { ...counts, by_code: sortedCodes(byCode) } }, null, 2).slice(0, -2)));
  for (let c = 0; c < CHANNELS.length; c++) {
    const count = index.channels[c][0];
    const name = CHANNELS[c];
    if (!touched[c]) {
      parts.push(Buffer.from(',\n'), text.subarray(marks[c] + 1, marks[c + 1] - 1));
      keepQuads(starts[c], count);
      channels.push([count, index.channels[c][1]]);
      if (c === NR) {
        cutNow.push(...cutWas);
        cutCodes.push(...deps.cutCodes);
        Object.assign(cutEntries, deps.cutEntries);
      }
      continue;
    }
    // First: the entries' lengths go into the quads copied below, and the next patch needs no search.
    if (count) spansOf(c);
    const members: Member[] = [];
    const gone = shownGone[c];
    for (let j = 0; j < count; j++) if (!gone.has(j)) members.push(j);
    if (c === NR) cutWas.forEach((_, m) => {
      if (!cutGone.has(m)) members.push(CUT + m);
    });
    for (const [id, now] of judged) {
      if (!now || !('e' in now) || now.channel !== c) continue;
      let lo = 0;
      let hi = members.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (keyOf(c, members[mid]) < now.key) lo = mid + 1;
        else hi = mid;
      }
      // (-1 - its index in `added`: the length once it is pushed, negated.)
      members.splice(lo, 0, -added.push(id));
    }
    const shown = c === NR ? Math.min(members.length, x.cap) : members.length;
    const out: Buffer[] = [];
    // A run of old entries in a row: one slice of the old text, one copy of their numbers.
    let runFrom = -1;
    let runTo = -1;
    const flush = () => {
      if (runFrom >= 0) {
        out.push(text.subarray(spansOf(c).spans[2 * runFrom], spansOf(c).spans[2 * runTo + 1]), Buffer.from(',\n'));
        keepQuads(starts[c] + runFrom, runTo - runFrom + 1);
      }
      runFrom = runTo = -1;
    };
    for (let to = 0; to < shown; to++) {
      const mem = members[to];
      if (mem >= 0 && mem < CUT) {
        if (runFrom >= 0 && mem === runTo + 1) runTo = mem;
        else {
          flush();
          runFrom = runTo = mem;
        }
        continue;
      }
      flush();
      let e: FrontierEntry;
      let id: string;
      if (mem < 0) {
        id = added[-1 - mem];
        e = (judged.get(id) as { e: FrontierEntry }).e;
      } else {
        // Left out before, shown now: its verdict is the answer's (nothing it read changed).
        const [k, i, , key] = cutWas[mem - CUT];
        id = listings[k].nameAt(i).slice(0, -3);
        where.set(id, [k, i]);
        const kept = deps.cutEntries[posCode(k, i)];
        const now = kept ? keptEntry(kept, snaps[k], i, holder) : judge(id);
        if (!now || !('e' in now) || now.channel !== NR || now.key !== key) give('an entry left out is not what it was');
        e = (now as { e: FrontierEntry }).e;
        promoted.set(id, now as { e: FrontierEntry; key: string });
      }
      const block = blockOf(e);
      const [k, i] = where.get(id) ?? give('an entry is not placed');
      quads.set([k, i, snaps[k].titles[i], snaps[k].prios[i], block.length], qn);
      qn += PER;
      out.push(block, Buffer.from(',\n'));
    }
    flush();
    out.pop();
    parts.push(Buffer.from(`,\n  ${JSON.stringify(name)}: ${shown ? '[\n' : '[]'}`), ...out, ...(shown ? [Buffer.from('\n  ]')] : []));
    for (let to = shown; to < members.length; to++) {
      const mem = members[to];
      if (mem >= CUT) {
        const entry = cutWas[mem - CUT];
        const code = posCode(entry[0], entry[1]);
        cutNow.push(entry);
        cutCodes.push(deps.cutCodes[mem - CUT] ?? give('the code of an entry left out is not known'));
        if (deps.cutEntries[code]) cutEntries[code] = deps.cutEntries[code];
      } else if (mem >= 0) {
        const n = PER * (starts[c] + mem);
        const key = keyOf(c, mem);
        const id = listings[q[n]].nameAt(q[n + 1]).slice(0, -3);
        cutNow.push([q[n], q[n + 1], q[n + 3], key]);
        cutCodes.push(codes.get(`${c}:${mem}`)!);
        if (special.has(id)) cutEntries[posCode(q[n], q[n + 1])] = oldEntry(c, mem);
      } else {
        const id = added[-1 - mem];
        const now = judged.get(id) as { e: FrontierEntry; key: string };
        const [k, i] = where.get(id)!;
        cutNow.push([k, i, snaps[k].prios[i], now.key]);
        cutCodes.push(now.e.code);
      }
    }
    channels.push([shown, members.length - shown]);
  }
  const left = channels[NR][1];
  parts.push(Buffer.from(`,\n  "truncated": ${indented(JSON.stringify(left ? { not_runnable: left } : {}, null, 2), '  ')},`), PROBLEMS_END);

  // Git or the checkout looked at where the answer did not: its header could not vouch for them.
  if (used.unknownCommits.length || (used.head !== undefined && !x.header.git)) give('git was asked');
  const h = x.header;
  const from = Math.max(h.from ?? -Infinity, bounds.from);
  const until = Math.min(h.until ?? Infinity, bounds.until);
  const header = {
    from: Number.isFinite(from) ? from : null, until: Number.isFinite(until) ? until : null,
    workspace: h.workspace ?? used.workspace, events: { ...used.eventSigs, ...h.events }, now: frontierNow(x.nowMs),
    spending: h.spending ?? used.spendingSig, git: h.git ?? null,
  };

  const quadArray = quads.subarray(0, qn);
  const hidden = hiddenSums(snaps, quadArray);
  const newIndex: TitleIndex = {
    listings: index.listings.map((was, k) => ({ ...was, titles: snaps[k].sums[1], prios: snaps[k].sums[2], hidden: hidden[k] })),
    channels, quads: quadArray, cut: { entries: cutNow },
  };
  const depsNow = nextDeps(deps, fresh, where, listings, agent, reads, { cutCodes, cutEntries });
  return { parts, index: newIndex, deps: depsNow, header, evaluated: judged.size + promoted.size };
}
