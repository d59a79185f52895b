import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordProblem } from '../core/record-codec.js';
import type { WorkItem } from '../core/types.js';
import { readStatIndex, rowOf, setNanBit, statIndexStamped, writeStatIndex, type StatIndex } from './stat-index.js';
import { appendLog, cachedCount, GRAPH_STAMP, logLine, readEntries, VERSION, writeEntries, type Patch } from './graph-cache.js';
import { listAgents, type Home } from './home.js';
import { workDir } from './work-store.js';
import { keyAt, listAll, sameNames, type Listing } from './work-listing.js';
import { addHash, neverMatching, parseEntry, subHash, type Entry } from './graph-entry.js';

export { addHash, contentHash, HASH_MOD, prioHash, readItem, readShown, subHash, titleHash, type Entry } from './graph-entry.js';
export { listAgentWork, listAll, type Listing } from './work-listing.js';
export { GRAPH_STAMP } from './graph-cache.js';
import { AgentContent, contentSource, type ContentSource } from './content-cache.js';
import { trace } from './trace.js';
import { itemOf, type Slim } from './graph-slim.js';


/**
 * The work graph as the frontier needs it: every item's front matter fields without the Markdown body,
 * through a cache in local/cache/graph-AGENT.json. Like work-index.ts, each entry is keyed by its file's
 * inode, size, mtime and ctime, so an edit by holon, by hand or by `git checkout` is always re-read;
 * the cache is small (no bodies, only live waits) so reading it is cheap at 10,000 items.
 */

export interface LoadedGraph {
  readonly items: WorkItem[];
  /** Loaded entries as (slim, id, agent) triples, before they become items. */
  slims: Array<Slim | 'D' | string>;
  problems: RecordProblem[];
  /**
   * A digest of what was loaded (per agent: the sum of each entry's content hash), independent of the
   * files' bytes elsewhere: a progress note changes a file but not this, so a cached answer stays valid.
   * Titles are not in it: see `snapshots`.
   */
  digest: Record<string, number>;
  /** Per agent, the names and title hashes of what was loaded (its snapshot's), in listing order. */
  snapshots: Record<string, StatIndex>;
  /** Per listing, its agent and how many items were loaded up to its end (the items' folders). */
  folders: Array<[string, number]>;
  /**
   * Whether every loaded entry is known to be the parse of the blob git's index names for its file
   * (content-cache.ts AgentContent.allKnown): false where an agent's load did not ask the content
   * cache, or a file was read as other bytes than git's (changed after it was listed). An answer
   * kept by content (content-answer.ts) is kept only from such a load.
   */
  byBlob: boolean;
}

const idxOf = (cachePath: string) => cachePath.slice(0, -'.json'.length) + '.idx';

/** How many files a first load parses (not taken from the content cache) and still defers the graph cache: at least this, or a 32nd of the files. */
const DEFER_PARSES = 32;

/** An agent's graph snapshot (stat-index.ts), if this build wrote it. */
export const readSnapshot = (listingCachePath: string) => readStatIndex(idxOf(listingCachePath), GRAPH_STAMP);

/** The snapshot stored again under another mark (its names and numbers are those of a listing made under it, whose part is `digest`). */
export const remarkSnapshot = (home: Home, listingCachePath: string, snap: StatIndex, mark: string, digest: string) =>
  writeStatIndex(idxOf(listingCachePath), snap, GRAPH_STAMP, join(home.local, 'tmp'), digest, mark);

/** The snapshot of `listing` (an evaluation's, with its part as the digest, as loadListed writes it). */
export const writeSnapshot = (home: Home, listing: Listing, idx: StatIndex) => writeStatIndex(idxOf(listing.cachePath), idx, GRAPH_STAMP, join(home.local, 'tmp'), listing.part);

/**
 * Reads the listed items: cached entries where the key still matches, a parse where it does not. An
 * agent whose graph cache is missing or holds fewer than half its names (a fresh clone) asks the
 * machine's content cache too (content-cache.ts): a file git vouches for is taken from it by its blob
 * id. With no graph cache at all, the content cache's parsed object becomes the graph cache's entries
 * (each taken entry gets its file's stat key in place; the rest are parsed and replaced): no copies.
 */
export function loadListed(home: Home, listing: Listing, out: LoadedGraph, content?: () => ContentSource | string): void {
  const { agent, cachePath, names, stats, racy } = listing;
  // Updated in place: building a second 10,000-key object per call costs more than the rest.
  const read = readEntries(cachePath);
  const { logged } = read;
  let entries = read.entries;
  let cc: AgentContent | null = null;
  let adopted = false;
  if (content && (logged === Infinity || 2 * cachedCount(entries) < names.length)) {
    const src = content();
    if (typeof src === 'string') trace(`${agent}: no content cache (${src})`);
    else {
      cc = new AgentContent(src, agent, VERSION, GRAPH_STAMP, names.length);
      if (logged === Infinity && cc.entries) {
        entries = cc.entries as Record<string, Entry>;
        adopted = true;
      }
    }
  }
  const patch: Patch = [];
  // The first load in a fresh local/ (no snapshot of this build yet) that takes its entries from the
  // content cache does not write the graph cache: a base is megabytes of JSON at 10,000 files (a fifth
  // of a cold call's cpu with the stat keys it needs), and the calls after this one read the snapshot
  // and the answer, not the graph. A later full load adopts the content cache again and writes it then.
  // A few files git does not vouch for (records changed and not committed yet) are parsed and stay
  // deferred too: that later load parses them once more, some 60 us each, where writing the base costs
  // over 1 us for every file. Null once more than DEFER_PARSES are parsed: the graph cache is written as
  // always. Holds the listing indexes taken so far, whose entries get their stat keys then (they keep
  // their blob keys until).
  let deferred: number[] | null = adopted && !statIndexStamped(idxOf(cachePath), GRAPH_STAMP) ? [] : null;
  let parsesLeft = Math.max(DEFER_PARSES, names.length >> 5);
  const undefer = () => {
    for (const j of deferred!) {
      const n = names[j];
      const k = keyAt(stats, j);
      entries[n][0] = racy.has(n) ? '~' + k : k;
      patch.push([n, entries[n]]);
    }
    deferred = null;
  };
  let count = 0;
  let digest = 0;
  const prefix = workDir(home, agent) + '/';
  // The snapshot for the next call's quick check (stat-index.ts), in listing order.
  const idxNames: string[] = [];
  const idxStats = new Float64Array(names.length * 4);
  const idxHashes = new Float64Array(names.length);
  const idxTitles = new Float64Array(names.length);
  const idxPrios = new Float64Array(names.length);
  let titleSum = 0;
  let prioSum = 0;
  let at = 0;
  let newline = false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (name.includes('\n')) {
      newline = true;
      // No snapshot is kept for this agent (below), so every load would count as the first: not deferred.
      if (deferred) undefer();
    }
    let entry: Entry | undefined = entries[name];
    const id = name.slice(0, -3);
    // Whether git's index vouches for this file (content-cache.ts).
    const vouched = cc !== null && cc.vouched(listing, name, i);
    let taken: Entry | null = null;
    let key = '';
    if (deferred) {
      taken = vouched ? (cc!.take(name, i) as Entry | null) : null;
      if (taken) deferred.push(i);
      else if (parsesLeft-- > 0) {
        // Parsed below, its entry (stat-keyed) in place of the adopted one, which is another blob's.
        key = keyAt(stats, i);
        entry = undefined;
      } else undefer();
    }
    if (!deferred) {
      key = keyAt(stats, i);
      // An adopted content entry is keyed by its blob, never by a stat key: one that looks like this
      // file's key (a corrupt cache file) is no graph-cache hit.
      if (adopted && entry && entry[0] === key) entry = undefined;
      taken = vouched && (!entry || entry[0] !== key) ? (cc!.take(name, i) as Entry | null) : null;
    }
    if (deferred && taken) entry = taken;
    else if (taken) {
      // The blob's entry under this file's key (never matching if racy, as for a parse below).
      taken[0] = racy.has(name) ? '~' + key : key;
      entries[name] = taken as Entry;
      entry = taken as Entry;
      patch.push([name, entry]);
    } else if (!entry || entry[0] !== key) {
      const parsed = parseEntry(prefix + name, id, agent, key, !listing.irregular.has(name), cc ? (text) => cc.learn(name, i, text) : undefined);
      if (cc && parsed && parsed[2]) cc.unlearn(i);
      if (!parsed) {
        // Unreadable now (gone meanwhile, a read error): kept in the snapshot as never matching, so a
        // listing rebuilt from it (kept-listing.ts) still names the file and it is read again.
        for (let k = 0; k < 4; k++) idxStats[4 * at + k] = NaN;
        idxTitles[at] = 0;
        idxPrios[at] = 0;
        idxHashes[at++] = 0;
        idxNames.push(name);
        continue;
      }
      const stored = racy.has(name) ? neverMatching(parsed) : parsed;
      entries[name] = stored;
      entry = parsed;
      patch.push([name, stored]);
    } else if (vouched) cc!.keep(i);
    // Racy, hard-linked and irregular files never match in the snapshot: the next call looks at them again.
    const r = racy.has(name) || listing.linked.has(name) || listing.irregular.has(name);
    for (let k = 0; k < 4; k++) idxStats[4 * at + k] = r ? NaN : stats[4 * i + k];
    idxTitles[at] = entry[4];
    idxPrios[at] = entry[5];
    titleSum = addHash(titleSum, entry[4]);
    prioSum = addHash(prioSum, entry[5]);
    idxHashes[at++] = entry[3];
    idxNames.push(name);
    count++;
    digest = addHash(digest, entry[3]);
    if (entry[1]) out.slims.push(entry[1], id, agent);
    else if (entry[2]) out.problems.push(entry[2]);
  }
  if (deferred) trace(`${agent}: graph cache not written (${deferred.length === count ? 'every entry' : `${deferred.length} of ${count} entries`} from the content cache)`);
  else if (count !== cachedCount(entries)) {
    // Files that disappeared leave entries behind.
    for (const name of Object.keys(entries)) {
      const key = listing.keys.get(name);
      if (key !== undefined && (entries[name][0] === key || entries[name][0] === '~' + key)) continue;
      delete entries[name];
      patch.push([name, 0]);
    }
  }
  out.digest[agent] = digest;
  if (patch.length && !deferred) writeEntries(home, cachePath, entries, count, logged, patch);
  if (!cc?.allKnown()) out.byBlob = false;
  if (cc) {
    trace(`${agent}: content cache, ${cc.taken} of ${names.length} taken, ${cc.learned} learned`);
    cc.save(names, entries);
  }
  const idx = { names: idxNames.join('\n'), count: at, stats: idxStats.subarray(0, at * 4), hashes: idxHashes.subarray(0, at), titles: idxTitles.subarray(0, at), prios: idxPrios.subarray(0, at), sums: Float64Array.of(digest, titleSum, prioSum), mark: listing.mark };
  out.snapshots[agent] = idx;
  if (newline) {
    // A name with a newline in it would shift every name after it against its numbers in a snapshot
    // (its names are one string, '\n' between them): none is kept, and this agent is listed in full.
    try {
      unlinkSync(idxOf(cachePath));
    } catch {
      // None.
    }
    return;
  }
  // Also when the snapshot is missing or another build's (whose hashes this build cannot use).
  // Its digest is the listing's part: the answer made from this listing is stored under that.
  if (patch.length || listing.remark || !statIndexStamped(idxOf(cachePath), GRAPH_STAMP)) writeSnapshot(home, listing, idx);
}

/**
 * The graph digest of a listing without loading the graph cache, when its snapshot (stat-index.ts)
 * has the same names in the same order: only files whose stat numbers differ are read. Those files'
 * new entries go to the graph cache's patch log, and `store` writes the new snapshot. Null when the
 * snapshot cannot answer (missing, other names, a file that vanished): load the graph instead.
 */
export function quickDigest(home: Home, listing: Listing): { digest: number; snapshot: StatIndex; changed: Array<[number, Entry]>; before: [number, number, number]; store: () => void } | null {
  const { agent, racy, linked, cachePath } = listing;
  const idx = listing.snapshot ?? readStatIndex(idxOf(cachePath), GRAPH_STAMP);
  if (!idx || idx.count !== listing.count || !sameNames(idx, listing)) return null;
  // The sums (digest, titles, priorities) as the snapshot was found, before the files read again change them.
  const before: [number, number, number] = [idx.sums[0], idx.sums[1], idx.sums[2]];
  const prefix = workDir(home, agent) + '/';
  const patch: string[] = [];
  // The files whose entry is not the snapshot's (content, title or priority), with their new entries.
  const changed: Array<[number, Entry]> = [];
  // A listing rebuilt from this very snapshot has its numbers but where it stat'ed files again: those
  // files' numbers alone are read (the snapshot's whole numbers are 2.8 MB at 50,000 files).
  const only = listing.snapshot === idx ? listing.looked : undefined;
  /**
   * Reads file i again if its numbers are not the snapshot's (or it is racy); false when it cannot be
   * read. `v` holds the snapshot's numbers of file i (patched in place), `now` the listing's from `n` on.
   */
  const look = (i: number, v: Pick<StatIndex, 'stats' | 'hashes' | 'titles' | 'prios'>, now: Float64Array, n: number): boolean => {
    const s = v.stats;
    const j = 4 * i;
    if (s[j] === now[n] && s[j + 1] === now[n + 1] && s[j + 2] === now[n + 2] && s[j + 3] === now[n + 3] && !(racy.size && racy.has(listing.nameAt(i)))) return true;
    const name = listing.nameAt(i);
    const key = keyAt(now, n / 4);
    const parsed = parseEntry(prefix + name, name.slice(0, -3), agent, key, !listing.irregular.has(name));
    if (!parsed) return false;
    const r = racy.has(name);
    const never = r || linked.has(name) || listing.irregular.has(name);
    // A file the snapshot never vouches for (racy, linked, irregular: stored as NaN), read again with the
    // same content: nothing of the snapshot moves, so neither it (megabytes at 50,000 files) nor the
    // graph cache's log is written again. Every call within 2 s of a change reads such a file.
    const { hashes, titles, prios } = v;
    if (never && Number.isNaN(s[j]) && hashes[i] === parsed[3] && titles[i] === parsed[4] && prios[i] === parsed[5]) return true;
    patch.push(logLine(name, r ? neverMatching(parsed) : parsed));
    for (let k = 0; k < 4; k++) s[j + k] = never ? NaN : now[n + k];
    setNanBit(idx, i, never);
    if (hashes[i] !== parsed[3] || titles[i] !== parsed[4] || prios[i] !== parsed[5]) changed.push([i, parsed]);
    const sums = idx.sums;
    sums[0] = addHash(subHash(sums[0], hashes[i]), parsed[3]);
    sums[1] = addHash(subHash(sums[1], titles[i]), parsed[4]);
    sums[2] = addHash(subHash(sums[2], prios[i]), parsed[5]);
    hashes[i] = parsed[3];
    titles[i] = parsed[4];
    prios[i] = parsed[5];
    return true;
  };
  if (only) {
    for (const i of only) if (!look(i, rowOf(idx, i), listing.numbersAt(i), 0)) return null;
  } else {
    const v = { stats: idx.stats, hashes: idx.hashes, titles: idx.titles, prios: idx.prios };
    const now = listing.stats;
    for (let i = 0; i < listing.count; i++) if (!look(i, v, now, 4 * i)) return null;
  }
  if (patch.length) {
    // Its numbers moved: now the listing's (where it stores NaN, any numbers do: stat-index.ts).
    idx.digest = listing.part;
    // If it cannot (a read-only home), the graph cache then parses these files itself.
    appendLog(cachePath, patch.join(''));
  }
  // Stored by the caller (`store`): not by a pick or a look that leaves the answer to the index keeper (ops/frontier-patched.ts).
  const store = patch.length || listing.remark ? () => writeStatIndex(idxOf(cachePath), idx, GRAPH_STAMP, join(home.local, 'tmp'), listing.part, listing.mark) : () => undefined;
  return { digest: idx.sums[0], snapshot: idx, changed, before, store };
}


/**
 * The content source, made on first need (a cold agent), once for all agents: git's index is read
 * once. Its own scope, so that nothing the loaded graph keeps (the `items` getter) holds git's index.
 */
function onFirstNeed(homeDir: string, listings: Listing[]): () => ContentSource | string {
  let content: ContentSource | string | undefined;
  return () => (content ??= contentSource(homeDir, listings));
}

export function loadListings(home: Home, listings: Listing[], content?: ContentSource | string): LoadedGraph {
  const slims: Array<Slim | 'D' | string> = [];
  let items: WorkItem[] | undefined;
  const out: LoadedGraph = {
    slims,
    problems: [],
    digest: {},
    snapshots: {},
    folders: [],
    byBlob: true,
    // Built on first use: a frontier whose answer is reused (same digest) never needs the items.
    get items() {
      if (!items) {
        items = [];
        for (let i = 0; i < slims.length; i += 3) items.push(itemOf(slims[i] as Slim | 'D', slims[i + 1] as string, slims[i + 2] as string));
        // The items are what is read from now on: the slims (tens of MB at 50,000) can go.
        slims.length = 0;
      }
      return items;
    },
  };
  const source = content !== undefined ? () => content : onFirstNeed(home.dir, listings);
  // Listing order is readdir's (byte order; a keeper's listing keeps it, kept-listing.ts): the evaluation
  // names gates and cycles in it, so every path to an answer must list the names alike.
  for (const l of listings) {
    loadListed(home, l, out, source);
    out.folders.push([l.agent, slims.length / 3]);
  }
  return out;
}

/** Every agent's items, graph fields only. */
export async function loadGraph(home: Home, agents = listAgents(home)): Promise<LoadedGraph> {
  return loadListings(home, listAll(home, agents));
}
