import { entryOrderKey, type Frontier, type FrontierEntry } from '../core/frontier.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { prioOf, snapshotSig, titleOf, type Titled } from './stat-index.js';
import { sameNames, type Listing } from './work-listing.js';
import type { Home } from './home.js';
import { addHash, HASH_MOD, subHash } from './graph-index.js';
import { channelLayouts, entryIn, headEndOf, HEAD_MAX, patchChannel, PER, shownId, type ChannelLayout } from './frontier-entry-text.js';
import type { AnswerText, Part } from './answer-text.js';
import { cutIndexOf, stillLeftOut, type CutIndex } from './frontier-cut.js';
import { alignedLine, alignedView } from './aligned.js';

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
 *   one apart; a changed sum is checked against the entries the default view's cap left out of
 *   not_runnable (frontier-cut.ts): one that stays out changes nothing shown, anything else means
 *   the answer is evaluated again;
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
  /** The entries the cap left out of not_runnable (frontier-cut.ts), where known; stored apart. */
  cut?: CutIndex;
  /** Where each entry's file is (listing * 2^32 + position), by id; made by titleIndexOf, not stored. */
  where?: Map<string, number>;
}

/**
 * Past this many entries shown, a patch is long work for currentTitles' `longWork`: its loops over
 * every entry (the sums, the spans, the order) made V8 compile each of them on the spot (on-stack
 * replacement), some 3-10 ms of cpu apiece at 25,000 entries, more than running them unoptimized.
 */
const LONG_INDEX = 2000;

/**
 * Per listing, the priority sum of the files the index does not show: its snapshot's sum less the
 * shown entries' (an entry shown twice counts twice: a new priority there then reads as a change not
 * shown, and the answer is evaluated again, which is rare and right). With `changed`, also notes the
 * entries whose title or priority hash is not the snapshot's, in the same pass.
 */
export function hiddenSums(snaps: Titled[], quads: Float64Array, changed?: number[]): number[] {
  const titles = snaps.map((x) => x.titles);
  const prios = snaps.map((x) => x.prios);
  const shown = snaps.map(() => 0);
  for (let n = 0; n < quads.length; n += PER) {
    const k = quads[n];
    const i = quads[n + 1];
    const p = prios[k][i];
    // addHash, inline: this runs once per entry, mostly before V8 optimizes anything.
    let sum = shown[k] + p;
    if (sum >= HASH_MOD) sum -= HASH_MOD;
    shown[k] = sum;
    if (changed && (titles[k][i] !== quads[n + 2] || p !== quads[n + 3])) changed.push(n / PER);
  }
  return snaps.map((x, k) => subHash(x.sums[2], shown[k]));
}

/** What changed since the snapshots were found (graph-index.ts quickDigest): per listing, their sums then and the files whose hashes moved. */
export interface Since {
  before: ReadonlyArray<readonly [number, number, number]>;
  files: ReadonlyArray<ReadonlyArray<readonly [number, unknown]>>;
}

/** Past this many files changed, sumsSince leaves it to hiddenSums' one pass. */
const FEW_FILES = 8;

/**
 * hiddenSums' answer from the files that changed alone: where each listing's snapshot, as it was found,
 * had the title and priority sums the index has (then, as for the `same` check, its hashes were the
 * index's, and only the files changed since can differ), each changed file's shown entries are found
 * by a scan of the numbers and the hidden sums moved by them: the snapshot's new sum, less the shown
 * sum the index had, plus each shown entry's old priority less its new. Null when that does not hold,
 * or past FEW_FILES (a scan a file).
 */
function sumsSince(index: TitleIndex, snaps: Titled[], since: Since): { hidden: number[]; changed: number[] } | null {
  const q = index.quads;
  if (since.files.reduce((n, f) => n + f.length, 0) > FEW_FILES) return null;
  const changed: number[] = [];
  const hidden: number[] = [];
  for (let k = 0; k < snaps.length; k++) {
    const x = index.listings[k];
    const was = since.before[k];
    if (!was || was[1] !== x.titles || was[2] !== x.prios) return null;
    let h = subHash(snaps[k].sums[2], subHash(x.prios, x.hidden));
    for (const [i] of since.files[k] ?? []) {
      const t = titleOf(snaps[k], i);
      const p = prioOf(snaps[k], i);
      for (let n = 0; n < q.length; n += PER) {
        if (q[n + 1] !== i || q[n] !== k) continue;
        h = addHash(h, subHash(q[n + 3], p));
        if (q[n + 2] !== t || q[n + 3] !== p) changed.push(n / PER);
      }
    }
    hidden.push(h);
  }
  return { hidden, changed: changed.sort((a, b) => a - b) };
}

/**
 * The entry index of answer `f`, or null when an id is in two listings; with `tail`, the not_runnable
 * entries its cap left out (in the same pass over the names), whose order keys are `holder`'s.
 */
export function titleIndexOf(listings: Listing[], snapshots: Record<string, Titled>, f: Frontier, tail: FrontierEntry[] = [], holder = ''): TitleIndex | null {
  const shown = shownIds(f);
  // Only the shown ids are looked up, keyed by the strings the answer holds anyway (at 50,000 items a
  // map of every name costs megabytes, at the command's peak).
  // (An id can be shown twice: a gate of this agent's that is stopped itself is also a decision.)
  const where = new Map<string, number>(shown.map((id) => [id, -1]));
  for (const e of tail) where.set(e.id, -1);
  for (let k = 0; k < listings.length; k++) {
    const l = listings[k];
    const snap = snapshots[l.agent];
    if (!snap || !sameNames(snap, l)) return null;
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
  const snaps = listings.map((l) => snapshots[l.agent]);
  const hidden = hiddenSums(snaps, quads);
  const tailAt = tail.map((e) => where.get(e.id)!);
  const cut = tail.length && !tailAt.includes(-1) ? cutIndexOf(tail.map((e) => entryOrderKey(e, holder)), tail.map((e) => e.code), tailAt, snaps) : undefined;
  return {
    ...(cut ? { cut } : {}),
    where,
    listings: listings.map((l, k) => {
      const snap = snapshots[l.agent];
      return { agent: l.agent, sig: snapshotSig(snap), titles: snap.sums[1], prios: snap.sums[2], hidden: hidden[k] };
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

/**
 * The index as bytes: a JSON line of the listings and channels, then the quads, 8-aligned in the file
 * (`before`: the bytes before the index there), so that a reader takes them without a copy.
 */
export function titleIndexBytes(t: TitleIndex, before = 0): Uint8Array[] {
  return [alignedLine(JSON.stringify({ listings: t.listings, channels: t.channels }), before), new Uint8Array(t.quads.buffer, t.quads.byteOffset, t.quads.byteLength)];
}

export function parseTitleIndex(buf: Buffer): TitleIndex | null {
  const nl = buf.indexOf(10);
  if (nl < 0 || (buf.length - nl - 1) % (8 * PER)) return null;
  try {
    const { listings, channels } = JSON.parse(buf.toString('utf8', 0, nl)) as Omit<TitleIndex, 'quads'>;
    const quads = alignedView(Float64Array, buf, nl + 1, (buf.length - nl - 1) / 8);
    if (!Array.isArray(listings) || !Array.isArray(channels) || channels.length !== CHANNELS.length) return null;
    if (channels.reduce((sum, [shown]) => sum + shown, 0) * PER !== quads.length) return null;
    return { listings, channels, quads };
  } catch {
    return null;
  }
}

export interface TitlePatch {
  /** The answer's text with the new titles and priorities in, in parts (ranges of the old text, new entries); none when none is patched. */
  parts: Part[];
  index: TitleIndex;
  /** How many entries got a new title or priority. */
  patched: number;
  /** Whether `index` is not the one given (then it is stored, even with nothing patched). */
  reindexed: boolean;
  /** The entries left out of not_runnable, when a priority among them changed (then stored too). */
  cut?: CutIndex;
}

/**
 * The answer (whose text, JSON, `answer` reads: null when it is not the indexed one any more) with the
 * current titles and priorities of the entries it shows: no parts when none changed, a patched copy
 * when some did, null when the index cannot say: then the answer is evaluated again. `holder` is the answer's (its order puts the holder's claims first).
 * `more.longWork` is called before the loops over every entry of a big index (see LONG_INDEX);
 * `more.cut` reads the entries left out of not_runnable, when a priority changed where it does not show.
 */
export function currentTitles(home: Home, answer: () => AnswerText | null, index: TitleIndex, listings: Listing[], snapshots: Record<string, Titled>, holder: string, more: { longWork?: () => void; cut?: () => CutIndex | null; since?: Since } = {}): TitlePatch | null {
  if (index.listings.length !== listings.length) return null;
  const q = index.quads;
  const snaps: Titled[] = [];
  let same = true;
  for (let k = 0; k < listings.length; k++) {
    const l = listings[k];
    const snap = snapshots[l.agent];
    const x = index.listings[k];
    if (x.agent !== l.agent || !snap || !sameNames(snap, l) || x.sig !== snapshotSig(snap)) return null;
    if (snap.sums[1] !== x.titles || snap.sums[2] !== x.prios) same = false;
    snaps.push(snap);
  }
  // Every title and priority hash as it was (their sums say so, as the digest does for the rest): the
  // answer's text is not even read (a pick has read its start alone).
  if (same) return { parts: [], index, patched: 0, reindexed: false };
  const text = answer();
  if (!text) return null;
  // What follows goes over every entry shown: the sums (or sumsSince's scan), the channels' layout.
  // (With the optimizer on, a `frontier --json` after a new title at 50,000 items took 126 ms of cpu
  // against 109, interleaved, on a machine where `node -e 0` took 55; at 10,000 the same.)
  if (q.length > LONG_INDEX * PER) more.longWork?.();
  const since = more.since && sumsSince(index, snaps, more.since);
  const changed: number[] = [];
  const hidden = since ? since.hidden : hiddenSums(snaps, q, changed);
  if (since) changed.push(...since.changed);
  // Each channel laid out from the head on by its entries' lengths (its line and close read, no search).
  let lays: ChannelLayout[] | null | undefined;
  const layout = () => {
    if (lays === undefined) {
      const headEnd = headEndOf(text.bytes(0, HEAD_MAX));
      lays = headEnd < 0 ? null : channelLayouts(text, headEnd, index.channels, index.quads);
    }
    return lays;
  };
  let leftOut: CutIndex | undefined;
  if (snaps.some((_, k) => hidden[k] !== index.listings[k].hidden)) {
    // A priority changed where the answer does not show it: still left out, or evaluated again.
    const was = more.cut?.();
    const wasHidden = index.listings.map((x) => x.hidden);
    const nr = CHANNELS.length - 1;
    const lastShown = () => {
      const lay = layout()?.[nr];
      const count = index.channels[nr][0];
      const first = index.channels.slice(0, nr).reduce((n, [shown]) => n + shown, 0);
      return lay && count ? entryIn(text, lay, count - 1, shownId(listings, q, PER * (first + count - 1))) : null;
    };
    const now = was && stillLeftOut(home, was, { lastShown, quads: q, channels: index.channels, wasHidden, hidden, listings, snaps, holder });
    if (!now) return null;
    leftOut = now;
  }
  // From here on the index vouches for the snapshot's sums as they are now.
  const listed = index.listings.map((x, k) => ({ ...x, titles: snaps[k].sums[1], prios: snaps[k].sums[2], hidden: hidden[k] }));
  // (A title changed where the answer does not show it, or a priority where it stays out of it.)
  if (!changed.length) return { parts: [], index: { ...index, listings: listed }, patched: 0, reindexed: true, ...(leftOut ? { cut: leftOut } : {}) };
  const ls = layout();
  if (!ls) return null;
  const quads = q.slice();
  const read = new Map<string, { title: string; priority: string | null }>();
  const parts: Part[] = [];
  let from = 0;
  let first = 0;
  let next = 0;
  for (let c = 0; c < CHANNELS.length; c++) {
    const [count, cut] = index.channels[c];
    const mine: number[] = [];
    while (next < changed.length && changed[next] < first + count) mine.push(changed[next++] - first);
    if (mine.length) {
      const lay = ls[c];
      const patched = patchChannel(home, text, lay, mine, { quads, first, listings, snaps, holder, cut, read });
      if (!patched) return null;
      parts.push(...text.parts(from, lay.at[0]), ...patched);
      from = lay.at[count] - 2;
    }
    first += count;
  }
  parts.push(...text.parts(from, text.length));
  return { parts, index: { ...index, listings: listed, quads }, patched: read.size, reindexed: true, ...(leftOut ? { cut: leftOut } : {}) };
}
