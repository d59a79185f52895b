import { join } from 'node:path';
import type { Frontier } from '../core/frontier.js';
import type { Titled } from './stat-index.js';
import type { Listing } from './work-listing.js';
import { workDir } from './work-store.js';
import type { Home } from './home.js';
import { contentHash, readTitle, titleHash } from './graph-index.js';

/**
 * The titles an answer shows, so that a new title does not cost a whole evaluation.
 *
 * A title changes no verdict, no order and no count: only the text of that item's entry. So the graph
 * digest leaves titles out (graph-index.ts), and an answer is stored with its title index: for each
 * entry it shows, where its file is (listing, position) and the hash of the title it shows. An answer
 * whose digest still holds is reused only after this check: every shown entry's title hash is
 * compared with the file's current one in the snapshot, and an entry whose title changed gets its new
 * title written into the answer's text. Positions are those of the listings when the answer was made:
 * each listing's names are signed, and other names (a file added, removed, listed in another order)
 * void the index, so the answer is evaluated again.
 */
export interface TitleIndex {
  /** Per listing (in the order of the triples' first number): its agent and a signature of its names. */
  listings: Array<{ agent: string; sig: string }>;
  /** (listing number, position in it, title hash) per shown entry. */
  triples: Float64Array;
}

const namesSig = (joined: string) => String(contentHash(joined));

/** The title index of an answer showing `shown` (ids), or null when an id is in two listings. */
export function titleIndexOf(listings: Listing[], snapshots: Record<string, Titled>, shown: string[]): TitleIndex | null {
  // Only the shown ids are looked up, keyed by the strings the answer holds anyway (at 50,000 items a
  // map of every name costs megabytes, at the command's peak).
  // (An id can be shown twice: a gate of this agent's that is stopped itself is also a decision.)
  const where = new Map<string, number>(shown.map((id) => [id, -1]));
  const out: TitleIndex = { listings: [], triples: new Float64Array(shown.length * 3) };
  for (let k = 0; k < listings.length; k++) {
    const l = listings[k];
    const snap = snapshots[l.agent];
    if (!snap || snap.names !== l.joined) return null;
    out.listings.push({ agent: l.agent, sig: namesSig(l.joined) });
    for (let i = 0; i < l.names.length; i++) {
      const id = l.names[i].slice(0, -3);
      const w = where.get(id);
      if (w === undefined) continue;
      // The same id in two folders: which file an entry shows is not certain.
      if (w !== -1) return null;
      where.set(id, k * 2 ** 32 + i);
    }
  }
  for (let n = 0; n < shown.length; n++) {
    const w = where.get(shown[n])!;
    if (w === -1) return null;
    const k = Math.floor(w / 2 ** 32);
    const i = w % 2 ** 32;
    out.triples.set([k, i, snapshots[listings[k].agent].titles[i]], 3 * n);
  }
  return out;
}

/** Every id an answer shows as an entry (its channels, decisions included). */
export function shownIds(f: Frontier): string[] {
  const ids: string[] = [];
  for (const c of ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable'] as const) for (const e of f[c]) ids.push(e.id);
  return ids;
}

/** The index as bytes: a JSON line of the listings, then the triples. */
export function titleIndexBytes(t: TitleIndex): Uint8Array[] {
  return [Buffer.from(JSON.stringify(t.listings) + '\n'), new Uint8Array(t.triples.buffer, t.triples.byteOffset, t.triples.byteLength)];
}

export function parseTitleIndex(buf: Buffer): TitleIndex | null {
  const nl = buf.indexOf(10);
  if (nl < 0 || (buf.length - nl - 1) % 24) return null;
  try {
    const listings = JSON.parse(buf.toString('utf8', 0, nl)) as TitleIndex['listings'];
    const triples = new Float64Array((buf.length - nl - 1) / 8);
    new Uint8Array(triples.buffer).set(buf.subarray(nl + 1));
    return { listings, triples };
  } catch {
    return null;
  }
}

export interface TitlePatch {
  /** The answer's text with the new titles in. */
  text: Buffer;
  index: TitleIndex;
  /** How many entries got a new title. */
  patched: number;
}

/**
 * The answer (`text`, JSON) with the current titles of the entries it shows: `text` itself when none
 * changed, a patched copy when some did, null when the index cannot say (the listings are not the
 * ones it was made on, an entry is not where it should be): then the answer is evaluated again.
 */
export function currentTitles(home: Home, text: Buffer, index: TitleIndex, listings: Listing[], snapshots: Record<string, Titled>): TitlePatch | null {
  if (index.listings.length !== listings.length) return null;
  for (let k = 0; k < listings.length; k++) {
    const l = listings[k];
    const snap = snapshots[l.agent];
    if (index.listings[k].agent !== l.agent || !snap || snap.names !== l.joined || index.listings[k].sig !== namesSig(l.joined)) return null;
  }
  const t = index.triples;
  const edits: Array<{ at: number; end: number; json: string }> = [];
  const done = new Set<string>();
  let triples = t;
  for (let n = 0; n < t.length; n += 3) {
    const l = listings[t[n]];
    const i = t[n + 1];
    const now = snapshots[l.agent].titles[i];
    if (now === t[n + 2]) continue;
    if (triples === t) triples = t.slice();
    triples[n + 2] = now;
    const name = l.names[i];
    if (done.has(name)) continue;
    done.add(name);
    const title = readTitle(join(workDir(home, l.agent), name), name.slice(0, -3));
    // Changed again since the snapshot was taken: evaluate again rather than mix the two.
    if (title === null || titleHash(title) !== now) return null;
    const spans = titleSpans(text, name.slice(0, -3));
    if (!spans.length) return null;
    for (const span of spans) edits.push({ ...span, json: JSON.stringify(title) });
  }
  if (!edits.length) return { text, index: { listings: index.listings, triples }, patched: 0 };
  edits.sort((a, b) => a.at - b.at);
  const parts: Buffer[] = [];
  let from = 0;
  for (const e of edits) {
    parts.push(text.subarray(from, e.at), Buffer.from(e.json));
    from = e.end;
  }
  parts.push(text.subarray(from));
  return { text: Buffer.concat(parts), index: { listings: index.listings, triples }, patched: done.size };
}

/**
 * Where the title of entry `id` is in the answer's text (once per entry that shows it): from its opening
 * quote to after its closing one. Entries are written at one depth (jsonParts, two spaces a level), id
 * first, then title. None when one is not as expected.
 */
function titleSpans(text: Buffer, id: string): Array<{ at: number; end: number }> {
  const head = Buffer.from(`\n      "id": ${JSON.stringify(id)},\n      "title": `);
  const out: Array<{ at: number; end: number }> = [];
  for (let found = text.indexOf(head); found >= 0; found = text.indexOf(head, found + 1)) {
    const at = found + head.length;
    if (text[at] !== 0x22) return [];
    let end = -1;
    // The closing quote is the first one not escaped (UTF-8 continuation bytes are all >= 0x80).
    for (let j = at + 1; j < text.length && end < 0; j++) {
      if (text[j] === 0x5c) j++;
      else if (text[j] === 0x22) end = j + 1;
    }
    if (end < 0) return [];
    out.push({ at, end });
  }
  return out;
}
