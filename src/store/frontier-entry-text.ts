import { join } from 'node:path';
import { entryOrderKey, type FrontierEntry } from '../core/frontier.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { indented } from '../core/json-parts.js';
import { prioHash, readShown, titleHash } from './graph-index.js';
import { prioOf, titleOf, type Titled } from './stat-index.js';
import type { Listing } from './work-listing.js';
import { workDir } from './work-store.js';
import type { Home } from './home.js';
import type { AnswerText, Part } from './answer-text.js';

/**
 * The text of a cached frontier answer, entry by entry (frontier-titles.ts says when it is patched):
 * where a channel's entries are, and one channel with new titles and priorities written in and its
 * moved entries put in their place.
 */

/** Numbers per shown entry in the entry index's quads (frontier-titles.ts). */
export const PER = 5;

export const CLOSE_ENTRY = Buffer.from('\n    }');

/** Whether text[s, e) starts as an entry does (`    {`) and ends as one does (`\n    }`); s + 4 < e <= text.length. */
export const isEntryAt = (text: Buffer, s: number, e: number): boolean =>
  text.readUInt32BE(s) === 0x20202020 && text[s + 4] === 0x7b && text[e - 1] === 0x7d && text[e - 6] === 0x0a;

/** The id of the shown entry whose numbers start at `n` in the entry index's quads: its file's name less `.md`. */
export const shownId = (listings: ReadonlyArray<Listing>, quads: Float64Array, n: number): string => listings[quads[n]].nameAt(quads[n + 1]).slice(0, -3);
const LAST = CHANNELS[CHANNELS.length - 1];
export const CLOSE_ARRAY = Buffer.from('\n  ]');

/**
 * The lengths of the entries of channel `c` found by a search of the whole text from `from`, and put
 * in `quads` from `first` (channelLayout's way where the lengths recorded there are not known or not
 * right); where its members start, or -1 when the channel is not written so or holds another count.
 * The answer is jsonParts' text (two spaces a level): a channel's array opens on the line `  "C": [`
 * and closes on `  ]`, and each entry is an object at depth two, from `    {` to `    }`, the next one
 * after `,\n`. JSON strings hold no raw newline, so those lines are found by their first bytes alone.
 */
function searchChannel(text: Buffer, c: string, count: number, quads: Float64Array, first: number, from: number): number {
  const open = Buffer.from(`\n  ${JSON.stringify(c)}: [\n`);
  // Each channel's line is in the text once (a key at depth one, and no JSON string holds a newline):
  // not_runnable, the last channel, is found from the end, not past megabytes of runnable entries.
  const at = c === LAST ? text.lastIndexOf(open) : text.indexOf(open, from);
  if (at < from) return -1;
  const start = at + open.length;
  const end = text.indexOf(CLOSE_ARRAY, start);
  if (end < 0) return -1;
  const lengths: number[] = [];
  for (let p = start; p < end;) {
    const close = text.indexOf(CLOSE_ENTRY, p);
    if (close < 0 || close >= end || text.readUInt32BE(p) !== 0x20202020 || text[p + 4] !== 0x7b) return -1;
    lengths.push(close + 6 - p);
    p = close + 6;
    if (p < end && (text[p] !== 0x2c || text[p + 1] !== 0x0a)) return -1;
    p += 2;
  }
  if (lengths.length !== count) return -1;
  lengths.forEach((len, j) => (quads[PER * (first + j) + 4] = len));
  return start;
}

/**
 * A channel of the answer's text laid out from where its line starts and its entries' lengths: no
 * search, where searchChannel looks for the channel's line (past megabytes of runnable at 50,000 items)
 * and checks each entry's first and last bytes. Here the channel's line and its close are checked; an
 * entry or a run of them where it is used (entryIn, runIn), each entry read also by its id.
 */
export interface ChannelLayout {
  /** Where entry j starts, at j; at `count`, two bytes past the end of the last (where one more would start). */
  at: Float64Array;
  /** Where the line after the channel starts (its newline, after the channel's comma). */
  next: number;
}

/**
 * Channel `name` from `mark`, the newline its line starts with; its entries' lengths are in `quads`
 * from `first` (found, and put there, where not known: by a search of the whole text). Null when the
 * text is not so. Reads the channel's line and its close, nothing between.
 */
export function channelLayout(text: AnswerText, mark: number, name: string, count: number, quads: Float64Array, first: number): ChannelLayout | null {
  const line = Buffer.from(`\n  ${JSON.stringify(name)}: ${count ? '[\n' : '[]'}`);
  if (!text.bytes(mark, mark + line.length).equals(line)) return null;
  const start = mark + line.length;
  const at = new Float64Array(count + 1);
  let p = start;
  if (count) {
    for (let pass = 0; ; pass++) {
      let j = 0;
      for (p = start; j < count; j++) {
        const len = quads[PER * (first + j) + 4];
        if (!(len > 5)) break;
        at[j] = p;
        p += len + 2;
      }
      // Where the lengths say the channel closes.
      if (j === count && text.bytes(p - 2, p - 2 + CLOSE_ARRAY.length).equals(CLOSE_ARRAY)) break;
      // Lengths not known (an answer as evaluated) or not right: found once, by a search from here.
      if (pass || searchChannel(text.all(), name, count, quads, first, mark) !== start) return null;
    }
    at[count] = p;
    p += CLOSE_ARRAY.length - 2;
  }
  return text.bytes(p, p + 1)[0] === 0x2c ? { at, next: p + 1 } : null;
}

const HEAD_END = Buffer.from('\n  "runnable": ');

/** An answer's head (agent, holder, now, counts, by_code) is some hundred bytes: it is within this many. */
export const HEAD_MAX = 16 * 1024;

/** Where an answer's head ends in its first bytes: the newline before the first channel's line, after the head's comma; -1 when it is not there. */
export function headEndOf(start: Buffer): number {
  const at = start.indexOf(HEAD_END);
  return at >= 1 && start[at - 1] === 0x2c ? at : -1;
}

/**
 * Every channel of the answer laid out (channelLayout), each after the one before, from `headEnd`;
 * `channels` and `quads` are its entry index's (frontier-titles.ts). Null when the text is not so.
 */
export function channelLayouts(text: AnswerText, headEnd: number, channels: ReadonlyArray<readonly [number, number]>, quads: Float64Array): ChannelLayout[] | null {
  const lays: ChannelLayout[] = [];
  let mark = headEnd;
  let first = 0;
  for (let c = 0; c < CHANNELS.length; c++) {
    const count = channels[c][0];
    const lay = channelLayout(text, mark, CHANNELS[c], count, quads, first);
    if (!lay) return null;
    lays.push(lay);
    mark = lay.next;
    first += count;
  }
  return lays;
}

/**
 * Whether entries a to b (both in) of a laid-out channel start and end where their lengths say: the
 * bytes around the run's two ends, read alone.
 */
export function runIn(text: AnswerText, lay: ChannelLayout, a: number, b: number): boolean {
  const s = lay.at[a];
  const e = lay.at[b + 1] - 2;
  if (!(e - s > 5)) return false;
  // s-2 .. s+4 and e-6 .. e+1.
  const h = text.bytes(s - 2, s + 5);
  const t = text.bytes(e - 6, e + 2);
  if (h.length !== 7 || t.length < 7) return false;
  const before = a === 0 ? h[1] === 0x0a : h[0] === 0x2c && h[1] === 0x0a;
  const after = b + 2 === lay.at.length ? t[6] === 0x0a : t[6] === 0x2c && t[7] === 0x0a;
  return before && after && h.readUInt32BE(2) === 0x20202020 && h[6] === 0x7b && t[5] === 0x7d && t[0] === 0x0a;
}

/** Entry j of a laid-out channel, when it is where its length says, parses and is `id`'s; else null. */
export function entryIn(text: AnswerText, lay: ChannelLayout, j: number, id: string): FrontierEntry | null {
  if (!(j + 1 < lay.at.length) || !runIn(text, lay, j, j)) return null;
  try {
    const e = JSON.parse(text.bytes(lay.at[j], lay.at[j + 1] - 2).toString('utf8')) as FrontierEntry;
    return e?.id === id ? e : null;
  } catch {
    return null;
  }
}

const PAD = '    ';
export const blockOf = (e: unknown) => Buffer.from(PAD + indented(JSON.stringify(e, null, 2), PAD));

const COMMA = Buffer.from(',\n');

export interface PatchCtx {
  /** The whole index, updated to match; this channel's quads start at `first`. */
  quads: Float64Array;
  first: number;
  listings: Listing[];
  snaps: Titled[];
  holder: string;
  /** How many entries the channel's cap left out. */
  cut: number;
  /** Files read so far (an id shown twice is read once). */
  read: Map<string, { title: string; priority: string | null }>;
}

/**
 * Channel `lay` with its entries at `mine` (positions in it) given their files' current title and
 * priority, and those whose priority changed moved to their place, as parts of text (runs of the
 * entries that stayed together are one part each, checked at their ends: runIn). Each entry read is
 * checked where it starts and ends and by its id. Null when that cannot be done with certainty.
 */
export function patchChannel(home: Home, text: AnswerText, lay: ChannelLayout, mine: number[], x: PatchCtx): Part[] | null {
  const { quads, first } = x;
  const count = lay.at.length - 1;
  const idOf = (j: number) => shownId(x.listings, quads, PER * (first + j));
  const blocks = new Map<number, Buffer>();
  const moved: number[] = [];
  for (const j of mine) {
    const n = PER * (first + j);
    const l = x.listings[quads[n]];
    const i = quads[n + 1];
    const snap = x.snaps[quads[n]];
    const name = l.nameAt(i);
    const id = name.slice(0, -3);
    let now = x.read.get(name);
    if (!now) {
      const shown = readShown(join(workDir(home, l.agent), name), id);
      // Changed again since the snapshot was taken: evaluate again rather than mix the two.
      if (!shown || titleHash(id, shown.title) !== titleOf(snap, i) || prioHash(id, shown.priority) !== prioOf(snap, i)) return null;
      x.read.set(name, (now = shown));
    }
    const e = entryIn(text, lay, j, id);
    if (!e) return null;
    if (quads[n + 3] !== prioOf(snap, i)) moved.push(j);
    e.title = now.title;
    e.priority = now.priority;
    const block = blockOf(e);
    blocks.set(j, block);
    quads[n + 4] = block.length;
    quads[n + 2] = titleOf(snap, i);
    quads[n + 3] = prioOf(snap, i);
  }
  let order: number[] | null = null;
  if (moved.length) {
    // The others are in order still: take the moved ones out, then put each in at its place.
    const out = new Set(moved);
    order = [];
    for (let j = 0; j < count; j++) if (!out.has(j)) order.push(j);
    const keys = new Map<number, string>();
    const keyOf = (j: number): string | null => {
      let k = keys.get(j);
      if (k === undefined) {
        const e = blocks.has(j) ? (JSON.parse(blocks.get(j)!.toString('utf8')) as FrontierEntry) : entryIn(text, lay, j, idOf(j));
        if (!e) return null;
        keys.set(j, (k = entryOrderKey(e, x.holder)));
      }
      return k;
    };
    for (const j of moved) {
      const key = keyOf(j);
      if (key === null) return null;
      let lo = 0;
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const k = keyOf(order[mid]);
        if (k === null) return null;
        if (k < key) lo = mid + 1;
        else hi = mid;
      }
      // Past the last entry shown of a channel its cap cut: it may belong after entries not in the text.
      if (lo === order.length && x.cut > 0) return null;
      order.splice(lo, 0, j);
    }
    const old = quads.slice(PER * first, PER * (first + count));
    order.forEach((j, to) => quads.set(old.subarray(PER * j, PER * (j + 1)), PER * (first + to)));
  }
  // Out in the new order; a run of untouched entries that were neighbours is one range of the text.
  const parts: Part[] = [];
  let runFrom = -1;
  let runTo = -1;
  const run = () => {
    if (runFrom < 0) return true;
    if (!runIn(text, lay, runFrom, runTo)) return false;
    parts.push(...text.parts(lay.at[runFrom], lay.at[runTo + 1] - 2), COMMA);
    runFrom = runTo = -1;
    return true;
  };
  for (let to = 0; to < count; to++) {
    const j = order ? order[to] : to;
    const block = blocks.get(j);
    if (!block && runFrom >= 0 && j === runTo + 1) {
      runTo = j;
      continue;
    }
    if (!run()) return null;
    if (block) parts.push(block, COMMA);
    else runFrom = runTo = j;
  }
  if (!run()) return null;
  parts.pop();
  return parts;
}

/** Entry j of a channel, parsed from its text; null when it does not parse. */
export function entryAt(text: Buffer, spans: number[], j: number): FrontierEntry | null {
  try {
    return JSON.parse(text.toString('utf8', spans[2 * j], spans[2 * j + 1])) as FrontierEntry;
  } catch {
    return null;
  }
}

/**
 * The entries of channel `c` of an answer's text, in order, each parsed only when it is reached
 * (`holon pick` claims the first runnable one it can, and rarely reads a second). The layout
 * channelLayout reads; a text not written so is parsed whole instead, past the entries already given.
 * `text` may be a part of the answer that holds its channels (`whole` gives all of it, for that parse).
 */
export function* channelEntries(text: Buffer, c: string, whole: () => Buffer = () => text): Generator<FrontierEntry> {
  let given = 0;
  const open = Buffer.from(`\n  ${JSON.stringify(c)}: [\n`);
  // Found where it is (the channels come first): never a scan of the whole answer, megabytes at 50k.
  const at = text.indexOf(open);
  if (at < 0 && text.includes(`\n  ${JSON.stringify(c)}: [],\n`)) return;
  for (let from = at + open.length; at >= 0;) {
    const close = text.indexOf(CLOSE_ENTRY, from);
    const e = close < 0 || text.readUInt32BE(from) !== 0x20202020 ? null : entryAt(text, [from, close + 6], 0);
    if (!e) break;
    given++;
    yield e;
    from = close + 6;
    if (text[from] === 0x2c && text[from + 1] === 0x0a) from += 2;
    else if (text.subarray(from, from + CLOSE_ARRAY.length).equals(CLOSE_ARRAY)) return;
    else break;
  }
  const all = (JSON.parse(whole().toString('utf8')) as Record<string, FrontierEntry[] | undefined>)[c] ?? [];
  yield* all.slice(given);
}
