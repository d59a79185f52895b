import { join } from 'node:path';
import { entryOrderKey, type Frontier, type FrontierEntry } from '../core/frontier.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { indented } from '../core/json-parts.js';
import type { Titled } from './stat-index.js';
import type { Listing } from './work-listing.js';
import { workDir } from './work-store.js';
import type { Home } from './home.js';
import { contentHash, HASH_MOD, prioHash, readShown, subHash, titleHash } from './graph-index.js';

/**
 * The titles and priorities an answer shows, so that a new title or priority does not cost a whole
 * evaluation.
 *
 * A title changes no verdict, no order and no count: only the text of that item's entry. A priority
 * changes no verdict and no count either, only the entry's text and its place in its channel (the
 * frontier's order, entryOrderKey). So the graph digest leaves both out (graph-index.ts), and an
 * answer is stored with its entry index: for each entry it shows, where its file is (listing,
 * position) and the title and priority hashes it shows; per channel, how many entries it shows and
 * how many its cap left out; per listing, a signature of its names and the sum of the priority hashes
 * of every file it does not show. An answer whose digest still holds is reused only after this check:
 *
 * - every shown entry's hashes are compared with the file's current ones in the snapshot; an entry
 *   whose title or priority changed is read from its file (and must give the snapshot's hashes), its
 *   new values are written into its text, and an entry with a new priority is moved to its place;
 * - a priority changed where the answer does not show it could bring that item into a capped channel
 *   (or change nothing: a closed item's priority is not kept): the sums of the files not shown tell
 *   one apart, and a changed sum means the answer is evaluated again;
 * - so does an entry that would move past the end of a channel its cap cut (what comes after it is
 *   not in the text), and anything not as expected: other names (a file added, removed, listed in
 *   another order), an entry not where entries are written, a file changed again meanwhile.
 */
export interface TitleIndex {
  /**
   * Per listing (in the order of the quads' first number): its agent, a signature of its names, the
   * sums of its snapshot's title and priority hashes (the same sums now: no title and no priority
   * changed, nothing to look at), and the priority sum of its files not shown.
   */
  listings: Array<{ agent: string; sig: string; titles: number; prios: number; hidden: number }>;
  /** Per channel (CHANNELS order, the answer's): how many entries it shows, and how many its cap left out. */
  channels: Array<[number, number]>;
  /**
   * Per shown entry, in the answer's order: listing number, position in it, title hash, priority
   * hash, and the byte length of its text (0 until a patch first finds it: then the next patch
   * finds every entry of its channel without a search).
   */
  quads: Float64Array;
}

const PER = 5;
const namesSig = (joined: string) => String(contentHash(joined));

/**
 * The sum of the priority hashes of a listing's files (`snap`), less those of the entries `quads`
 * shows from listing `k` (an entry shown twice counts twice: a new priority there then reads as a
 * change not shown, and the answer is evaluated again, which is rare and right). Modulo 2^52.
 */
function hiddenSum(snap: Titled, quads: Float64Array, k: number): number {
  const prios = snap.prios;
  // addHash, inline: this runs once per entry, mostly before V8 optimizes anything.
  let shown = 0;
  for (let n = 0; n < quads.length; n += PER) {
    if (quads[n] !== k) continue;
    shown += prios[quads[n + 1]];
    if (shown >= HASH_MOD) shown -= HASH_MOD;
  }
  return subHash(snap.sums[2], shown);
}

/** The entry index of answer `f`, or null when an id is in two listings. */
export function titleIndexOf(listings: Listing[], snapshots: Record<string, Titled>, f: Frontier): TitleIndex | null {
  const shown = shownIds(f);
  // Only the shown ids are looked up, keyed by the strings the answer holds anyway (at 50,000 items a
  // map of every name costs megabytes, at the command's peak).
  // (An id can be shown twice: a gate of this agent's that is stopped itself is also a decision.)
  const where = new Map<string, number>(shown.map((id) => [id, -1]));
  for (let k = 0; k < listings.length; k++) {
    const l = listings[k];
    const snap = snapshots[l.agent];
    if (!snap || snap.names !== l.joined) return null;
    for (let i = 0; i < l.names.length; i++) {
      const id = l.names[i].slice(0, -3);
      const w = where.get(id);
      if (w === undefined) continue;
      // The same id in two folders: which file an entry shows is not certain.
      if (w !== -1) return null;
      where.set(id, k * 2 ** 32 + i);
    }
  }
  const quads = new Float64Array(shown.length * PER);
  for (let n = 0; n < shown.length; n++) {
    const w = where.get(shown[n])!;
    if (w === -1) return null;
    const k = Math.floor(w / 2 ** 32);
    const i = w % 2 ** 32;
    const snap = snapshots[listings[k].agent];
    quads.set([k, i, snap.titles[i], snap.prios[i], 0], PER * n);
  }
  return {
    listings: listings.map((l, k) => {
      const snap = snapshots[l.agent];
      return { agent: l.agent, sig: namesSig(l.joined), titles: snap.sums[1], prios: snap.sums[2], hidden: hiddenSum(snap, quads, k) };
    }),
    channels: CHANNELS.map((c) => [f[c].length, f.truncated[c] ?? 0]),
    quads,
  };
}

/** Every id an answer shows as an entry (its channels, decisions included), in the answer's order. */
export function shownIds(f: Frontier): string[] {
  const ids: string[] = [];
  for (const c of CHANNELS) for (const e of f[c]) ids.push(e.id);
  return ids;
}

/** The index as bytes: a JSON line of the listings and channels, then the quads. */
export function titleIndexBytes(t: TitleIndex): Uint8Array[] {
  return [Buffer.from(JSON.stringify({ listings: t.listings, channels: t.channels }) + '\n'), new Uint8Array(t.quads.buffer, t.quads.byteOffset, t.quads.byteLength)];
}

export function parseTitleIndex(buf: Buffer): TitleIndex | null {
  const nl = buf.indexOf(10);
  if (nl < 0 || (buf.length - nl - 1) % (8 * PER)) return null;
  try {
    const { listings, channels } = JSON.parse(buf.toString('utf8', 0, nl)) as Omit<TitleIndex, 'quads'>;
    const quads = new Float64Array((buf.length - nl - 1) / 8);
    new Uint8Array(quads.buffer).set(buf.subarray(nl + 1));
    if (!Array.isArray(listings) || !Array.isArray(channels) || channels.length !== CHANNELS.length) return null;
    if (channels.reduce((sum, [shown]) => sum + shown, 0) * PER !== quads.length) return null;
    return { listings, channels, quads };
  } catch {
    return null;
  }
}

export interface TitlePatch {
  /** The answer's text with the new titles and priorities in, in parts (slices of the old text, new entries). */
  parts: Buffer[];
  index: TitleIndex;
  /** How many entries got a new title or priority. */
  patched: number;
  /** Whether `index` is not the one given (then it is stored, even with nothing patched). */
  reindexed: boolean;
}

/** A channel's entries in the answer's text: where its array's members start and end, and each entry's. */
interface ChannelText {
  start: number;
  end: number;
  /** Where entry j starts and ends (after its closing brace), at 2j and 2j + 1. */
  spans: number[];
}

const CLOSE_ENTRY = Buffer.from('\n    }');
const CLOSE_ARRAY = Buffer.from('\n  ]');

/**
 * The members of channel `c` in the answer's text (its entries' lengths are in `quads` from `first`,
 * where known, and are put there). The answer is jsonParts' text (two spaces a level): a channel's
 * array opens on the line `  "C": [` and closes on `  ]`, and each entry is an object at depth two,
 * from `    {` to `    }`, the next one after `,\n`. JSON strings hold no raw newline, so those
 * lines are found by their first bytes alone. Null when the channel is not written so, or holds
 * another count.
 */
function channelText(text: Buffer, c: string, count: number, quads: Float64Array, first: number): ChannelText | null {
  const open = Buffer.from(`\n  ${JSON.stringify(c)}: [\n`);
  const at = text.indexOf(open);
  if (at < 0) return null;
  const start = at + open.length;
  const known = knownSpans(text, start, count, quads, first);
  if (known) return known;
  const end = text.indexOf(CLOSE_ARRAY, start);
  if (end < 0) return null;
  const spans: number[] = [];
  for (let from = start; from < end;) {
    const close = text.indexOf(CLOSE_ENTRY, from);
    if (close < 0 || close >= end || text.readUInt32BE(from) !== 0x20202020 || text[from + 4] !== 0x7b) return null;
    spans.push(from, close + 6);
    from = close + 6;
    if (from < end && (text[from] !== 0x2c || text[from + 1] !== 0x0a)) return null;
    from += 2;
  }
  if (spans.length !== 2 * count) return null;
  for (let j = 0; j < count; j++) quads[PER * (first + j) + 4] = spans[2 * j + 1] - spans[2 * j];
  return { start, end, spans };
}

/** The channel's spans from its entries' known lengths, each checked where it starts and ends; null when any is unknown or off. */
function knownSpans(text: Buffer, start: number, count: number, quads: Float64Array, first: number): ChannelText | null {
  const spans: number[] = new Array(2 * count);
  let at = start;
  for (let j = 0; j < count; j++) {
    const len = quads[PER * (first + j) + 4];
    if (!(len > 5) || at + len > text.length) return null;
    if (text[at] !== 0x20 || text[at + 4] !== 0x7b || text[at + len - 1] !== 0x7d || text[at + len - 6] !== 0x0a) return null;
    spans[2 * j] = at;
    spans[2 * j + 1] = at + len;
    at += len;
    if (j < count - 1) {
      if (text[at] !== 0x2c || text[at + 1] !== 0x0a) return null;
      at += 2;
    }
  }
  return text.subarray(at, at + CLOSE_ARRAY.length).equals(CLOSE_ARRAY) ? { start, end: at, spans } : null;
}

const PAD = '    ';
const blockOf = (e: unknown) => Buffer.from(PAD + indented(JSON.stringify(e, null, 2), PAD));

/**
 * The answer (`text`, JSON) with the current titles and priorities of the entries it shows: `text`
 * itself when none changed, a patched copy when some did, null when the index cannot say: then the
 * answer is evaluated again. `holder` is the answer's (its order puts the holder's claims first).
 */
export function currentTitles(home: Home, text: Buffer, index: TitleIndex, listings: Listing[], snapshots: Record<string, Titled>, holder: string): TitlePatch | null {
  if (index.listings.length !== listings.length) return null;
  const q = index.quads;
  const snaps: Titled[] = [];
  let same = true;
  for (let k = 0; k < listings.length; k++) {
    const l = listings[k];
    const snap = snapshots[l.agent];
    const x = index.listings[k];
    if (x.agent !== l.agent || !snap || snap.names !== l.joined || x.sig !== namesSig(l.joined)) return null;
    if (snap.sums[1] !== x.titles || snap.sums[2] !== x.prios) same = false;
    snaps.push(snap);
  }
  // Every title and priority hash as it was (their sums say so, as the digest does for the rest).
  if (same) return { parts: [text], index, patched: 0, reindexed: false };
  // One pass: the entries whose title or priority changed, and each listing's priority sum of the
  // entries shown (an entry shown twice counts twice: a new priority there then reads as a change
  // not shown, and the answer is evaluated again, which is rare and right).
  const titles = snaps.map((x) => x.titles);
  const prios = snaps.map((x) => x.prios);
  const shownSums = snaps.map(() => 0);
  const changed: number[] = [];
  for (let n = 0; n < q.length; n += PER) {
    const k = q[n];
    const i = q[n + 1];
    const p = prios[k][i];
    // addHash, inline: this runs once per entry, mostly before V8 optimizes anything.
    let sum = shownSums[k] + p;
    if (sum >= HASH_MOD) sum -= HASH_MOD;
    shownSums[k] = sum;
    if (titles[k][i] !== q[n + 2] || p !== q[n + 3]) changed.push(n / PER);
  }
  for (let k = 0; k < snaps.length; k++) if (subHash(snaps[k].sums[2], shownSums[k]) !== index.listings[k].hidden) return null;
  // From here on the index vouches for the snapshot's sums as they are now.
  const listed = index.listings.map((x, k) => ({ ...x, titles: snaps[k].sums[1], prios: snaps[k].sums[2] }));
  // (A title changed where the answer does not show it.)
  if (!changed.length) return { parts: [text], index: { ...index, listings: listed }, patched: 0, reindexed: true };
  const quads = q.slice();
  const read = new Map<string, { title: string; priority: string | null }>();
  const parts: Buffer[] = [];
  let from = 0;
  let first = 0;
  let next = 0;
  for (let c = 0; c < CHANNELS.length; c++) {
    const [count, cut] = index.channels[c];
    const mine: number[] = [];
    while (next < changed.length && changed[next] < first + count) mine.push(changed[next++] - first);
    if (mine.length) {
      const ch = channelText(text, CHANNELS[c], count, quads, first);
      if (!ch || ch.start < from) return null;
      const patched = patchChannel(home, text, ch, mine, { quads, first, listings, snaps, holder, cut, read });
      if (!patched) return null;
      parts.push(text.subarray(from, ch.start), ...patched);
      from = ch.end;
    }
    first += count;
  }
  parts.push(text.subarray(from));
  return { parts, index: { ...index, listings: listed, quads }, patched: read.size, reindexed: true };
}

const COMMA = Buffer.from(',\n');

interface PatchCtx {
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
 * Channel `ch` with its entries at `mine` (positions in it) given their files' current title and
 * priority, and those whose priority changed moved to their place, as parts of text (runs of the
 * entries that stayed together are one part each). Null when that cannot be done with certainty.
 */
function patchChannel(home: Home, text: Buffer, ch: ChannelText, mine: number[], x: PatchCtx): Buffer[] | null {
  const { quads, first } = x;
  const spans = ch.spans;
  const count = spans.length / 2;
  const blocks = new Map<number, Buffer>();
  const moved: number[] = [];
  for (const j of mine) {
    const n = PER * (first + j);
    const l = x.listings[quads[n]];
    const i = quads[n + 1];
    const snap = x.snaps[quads[n]];
    const name = l.nameAt(i);
    let now = x.read.get(name);
    if (!now) {
      const shown = readShown(join(workDir(home, l.agent), name), name.slice(0, -3));
      // Changed again since the snapshot was taken: evaluate again rather than mix the two.
      const id = name.slice(0, -3);
      if (!shown || titleHash(id, shown.title) !== snap.titles[i] || prioHash(id, shown.priority) !== snap.prios[i]) return null;
      x.read.set(name, (now = shown));
    }
    const e = entryAt(text, spans, j);
    if (!e || e.id !== name.slice(0, -3)) return null;
    if (quads[n + 3] !== snap.prios[i]) moved.push(j);
    e.title = now.title;
    e.priority = now.priority;
    const block = blockOf(e);
    blocks.set(j, block);
    quads[n + 4] = block.length;
    quads[n + 2] = snap.titles[i];
    quads[n + 3] = snap.prios[i];
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
        const e = blocks.has(j) ? (JSON.parse(blocks.get(j)!.toString('utf8')) as FrontierEntry) : entryAt(text, spans, j);
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
  // Out in the new order; a run of untouched entries that were neighbours is one slice of the text.
  const parts: Buffer[] = [];
  let runFrom = -1;
  let runTo = -1;
  for (let to = 0; to < count; to++) {
    const j = order ? order[to] : to;
    const block = blocks.get(j);
    if (!block && runFrom >= 0 && j === runTo + 1) {
      runTo = j;
      continue;
    }
    if (runFrom >= 0) parts.push(text.subarray(spans[2 * runFrom], spans[2 * runTo + 1]), COMMA);
    runFrom = runTo = -1;
    if (block) parts.push(block, COMMA);
    else runFrom = runTo = j;
  }
  if (runFrom >= 0) parts.push(text.subarray(spans[2 * runFrom], spans[2 * runTo + 1]), COMMA);
  parts.pop();
  return parts;
}

/** Entry j of a channel, parsed from its text; null when it does not parse. */
function entryAt(text: Buffer, spans: number[], j: number): FrontierEntry | null {
  try {
    return JSON.parse(text.toString('utf8', spans[2 * j], spans[2 * j + 1])) as FrontierEntry;
  } catch {
    return null;
  }
}
