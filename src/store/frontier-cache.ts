import { Hash128 } from '../core/hash128.js';
import { join } from 'node:path';
import { VERSION } from '../version.js';
import { BUILD_ID } from '../build-id.js';
import { fileKey, writeCache } from './cache-file.js';
import { capabilityCachePath } from './capabilities.js';
import { eventsSignature, type InputUse } from './frontier-input.js';
import type { Listing } from './graph-index.js';
import { agentDir, type Home } from './home.js';
import { spendingSignature } from './budget.js';
import { objectsSignature, readHead, readWorkspace } from './workspace.js';
import { parseTitleIndex, titleIndexBytes, type TitleIndex } from './frontier-titles.js';
import { cutParts, parseCut, type CutIndex } from './frontier-cut.js';
import { depParts, parseDeps, type DepIndex } from './frontier-deps.js';
import { writeAnswerText, type CachedFrontier, type Patched } from './answer-file.js';
import { CACHE_VERSION, cachePath, cutPath, depsPath, newToken, readLineage, titlesPath, viewKey, type FrontierHeader, type FrontierView } from './frontier-files.js';

/** Same HEAD (read from the files), and no new objects where a commit git did not know would appear (a fetch may bring it). */
function gitUnchanged(g: { head: string | null; unknown: string[]; objects?: string[] }, cwd: string): boolean {
  if (readHead(cwd) !== g.head) return false;
  return g.unknown.every((c, i) => objectsSignature(cwd, [c]) === g.objects?.[i]);
}

/**
 * The last frontier of an agent, reused while nothing it depends on changed: the fingerprint covers
 * every work file's inode/size/mtime/ctime (all agents), holon.yaml, the agent's AGENTS.md, the
 * capability cache, the holder and the limit; the entry also records the git checkout and event
 * folders when the evaluation looked at them, and the time window in which no lease ends and no
 * at: condition falls due. Outside any of these it is recomputed, so a hand edit or a `git checkout`
 * is always seen.
 */

const statSig = (file: string) => fileKey(file) ?? '-';

/** Everything but the work items: code, agent, holder, limit, holon.yaml, AGENTS.md, capability cache. */
function baseHash(home: Home, agent: string, holder: string, view: FrontierView): Hash128 {
  const h = new Hash128();
  h.update(`${CACHE_VERSION}\0${VERSION}\0${agent}\0${holder}\0${viewKey(view)}\0`);
  h.update(JSON.stringify(home.config));
  // A rebuilt holon (new evaluator code) never serves an answer of the old one.
  h.update(BUILD_ID);
  h.update(statSig(join(agentDir(home, agent), 'AGENTS.md')));
  h.update(statSig(capabilityCachePath(home)));
  return h;
}

/**
 * The fingerprint of everything the answer was made from that a listing shows: per agent its names and
 * numbers, as the listing's part (work-listing.ts: the digest its snapshot stores, chained with the few
 * numbers stat'ed again that moved, or a SHA-1 of them all). A reused answer then hashes a few hundred
 * bytes, and never loads node:crypto (some 5 ms, a third of its work).
 */
export function frontierFingerprint(home: Home, agent: string, holder: string, view: FrontierView, listings: Listing[]): string {
  const h = baseHash(home, agent, holder, view);
  for (const l of listings) h.update(`\0${l.agent}\0${l.count}\0${l.part}`);
  return h.digest();
}

export function graphFingerprint(home: Home, agent: string, holder: string, view: FrontierView, digest: Record<string, number>): string {
  const h = baseHash(home, agent, holder, view);
  for (const a of Object.keys(digest).sort()) h.update(`\0${a}\0${digest[a]}`);
  return h.digest();
}

/** What the verdicts of the answer under `lineage` read (frontier-deps.ts), or null. */
export const readDeps = (home: Home, agent: string, view: FrontierView, lineage: string | undefined): DepIndex | null =>
  readLineage(depsPath(home, agent, view), lineage, parseDeps);

/** The entries left out of the answer under `lineage` (frontier-cut.ts), or null. */
export const readCut = (home: Home, agent: string, view: FrontierView, lineage: string | undefined): CutIndex | null =>
  readLineage(cutPath(home, agent, view), lineage, parseCut);

export function storeCut(home: Home, agent: string, view: FrontierView, lineage: string, cut: CutIndex): void {
  const line = `${lineage}\n`;
  writeCache(cutPath(home, agent, view), [line, ...cutParts(cut, Buffer.byteLength(line))], join(home.local, 'tmp'));
}

/** The title index stored with the answer `c` (the same token), or null. */
export const readTitleIndex = (home: Home, agent: string, view: FrontierView, c: CachedFrontier): TitleIndex | null =>
  readLineage(titlesPath(home, agent, view), c.header.token, parseTitleIndex);

/** Whether the inputs outside the fingerprints are as they were: the clock window, the checkout, events. */
export function stillValid(home: Home, h: FrontierHeader, nowMs: number, cwd: string): boolean {
  if ((h.from != null && nowMs < h.from) || (h.until != null && nowMs >= h.until)) return false;
  if (h.workspace && JSON.stringify(readWorkspace(cwd)) !== JSON.stringify(h.workspace)) return false;
  for (const [a, sig] of Object.entries(h.events)) if (eventsSignature(home, a) !== sig) return false;
  if (h.spending != null && spendingSignature(home) !== h.spending) return false;
  if (h.git && !gitUnchanged(h.git, cwd)) return false;
  return true;
}

/**
 * Stores a new answer: its text under a new token, then the header naming it. A header without a
 * lineage is a new evaluation's: it gets one, and the entries its cap left out are stored under it.
 * Returns the token, and whether the text was written.
 */
export function storeFrontier(home: Home, agent: string, view: FrontierView, h: Omit<FrontierHeader, 'v' | 'token'>, text: string | Uint8Array | Iterable<Uint8Array> | Patched, titles: TitleIndex | null, deps?: DepIndex | null): StoredAs {
  const token = newToken();
  const lineage = h.lineage ?? newToken();
  const written = writeAnswerText(home, agent, view, token, text);
  if (titles?.cut) storeCut(home, agent, view, lineage, titles.cut);
  // Only with a new lineage: the answers of an older one keep theirs.
  if (deps && !h.lineage) writeCache(depsPath(home, agent, view), [`${lineage}\n`, ...depParts(deps)], join(home.local, 'tmp'));
  // Without one, the answer is reused only while no work file changes (see frontier-titles.ts).
  if (titles) storeTitleIndex(home, agent, view, token, titles);
  restampFrontier(home, agent, view, { ...h, token, lineage });
  return { token, lineage, written };
}

/** A stored answer's token, and whether its text was written (a read-only home, a full disk: not; its header then names a text no file has). */
export interface StoredAs {
  token: string;
  lineage: string;
  written: boolean;
}

/** The title index of the answer under `token`. */
export function storeTitleIndex(home: Home, agent: string, view: FrontierView, token: string, titles: TitleIndex): void {
  writeCache(titlesPath(home, agent, view), [token + '\n', ...titleIndexBytes(titles, Buffer.byteLength(token) + 1)], join(home.local, 'tmp'));
}

/** The same answer under a new header (new file keys after a change that cannot move it). */
export function restampFrontier(home: Home, agent: string, view: FrontierView, h: Omit<FrontierHeader, 'v'>): void {
  writeCache(cachePath(home, agent, view), JSON.stringify({ ...h, v: CACHE_VERSION }), join(home.local, 'tmp'));
}

/**
 * The header of a new answer. Every signature in it comes from `used`, where the evaluation took it
 * before reading what it signs (see InputUse): none is taken here, after the reads.
 */
export function headerFor(fp: string, gfp: string, bounds: { from: number; until: number }, used: InputUse, now: string): Omit<FrontierHeader, 'v' | 'token'> {
  return {
    fp, gfp, from: Number.isFinite(bounds.from) ? bounds.from : null, until: Number.isFinite(bounds.until) ? bounds.until : null,
    workspace: used.workspace, events: { ...used.eventSigs }, now, spending: used.spendingSig,
    git: used.head === undefined ? null : { head: used.head, unknown: used.unknownCommits, ...(used.unknownCommits.length ? { objects: used.unknownObjects } : {}) },
  };
}
