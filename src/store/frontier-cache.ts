import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Workspace } from '../core/frontier.js';
import { VERSION } from '../version.js';
import { fileKey, writeCache } from './cache-file.js';
import { capabilityCachePath } from './capabilities.js';
import { eventsSignature, type InputUse } from './frontier-input.js';
import type { Listing } from './graph-index.js';
import { agentDir, type Home } from './home.js';
import { objectsSignature, readHead, readWorkspace } from './workspace.js';

/** Same HEAD (read from the files), and no new objects where a commit git did not know would appear (a fetch may bring it). */
function gitUnchanged(g: { head: string | null; unknown: string[]; objects?: string }, cwd: string): boolean {
  if (readHead(cwd) !== g.head) return false;
  return !g.unknown.length || objectsSignature(cwd, g.unknown) === g.objects;
}

/**
 * The last frontier of an agent, reused while nothing it depends on changed: the fingerprint covers
 * every work file's inode/size/mtime/ctime (all agents), holon.yaml, the agent's AGENTS.md, the
 * capability cache, the holder and the limit; the entry also records the git checkout and event
 * folders when the evaluation looked at them, and the time window in which no lease ends and no
 * at: condition falls due. Outside any of these it is recomputed, so a hand edit or a `git checkout`
 * is always seen.
 */

const CACHE_VERSION = 3;

interface Header {
  v: number;
  /** Fingerprint over the files' keys: a match needs no graph at all. */
  fp: string;
  /** Fingerprint over the loaded graph's content: a match after a body-only edit (progress, evidence). */
  gfp: string;
  from: number | null;
  until: number | null;
  workspace: Workspace | null;
  events: Record<string, string>;
  now: string;
  /** Issue 16: the HEAD the freshness check compared with, and the recorded commits git did not know. */
  git?: { head: string | null; unknown: string[]; objects?: string } | null;
}

export interface CachedFrontier {
  header: Header;
  text: string;
}

const CODE = ['../core/frontier.js', '../core/frontier-checks.js', '../core/frontier-freshness.js', '../core/roles.js', './frontier-cache.js', './graph-index.js'].map((r) => fileURLToPath(new URL(r, import.meta.url)));

const statSig = (file: string) => fileKey(file) ?? '-';

/** Everything but the work items: code, agent, holder, limit, holon.yaml, AGENTS.md, capability cache. */
function baseHash(home: Home, agent: string, holder: string, limit: number | undefined) {
  const h = createHash('sha1');
  h.update(`${CACHE_VERSION}\0${VERSION}\0${agent}\0${holder}\0${limit ?? 'all'}\0`);
  h.update(JSON.stringify(home.config));
  // A rebuilt holon (new evaluator code) never serves an answer of the old one.
  for (const f of CODE) h.update(statSig(f));
  h.update(statSig(join(agentDir(home, agent), 'AGENTS.md')));
  h.update(statSig(capabilityCachePath(home)));
  return h;
}

export function frontierFingerprint(home: Home, agent: string, holder: string, limit: number | undefined, listings: Listing[]): string {
  const h = baseHash(home, agent, holder, limit);
  const parts: string[] = [];
  for (const l of listings) {
    parts.push(`\0${l.agent}\0`);
    for (const [name, key] of l.keys) parts.push(name, key);
  }
  // One update of one string: 10,000 small updates cost more than the hashing.
  h.update(parts.join('\n'));
  return h.digest('hex');
}

export function graphFingerprint(home: Home, agent: string, holder: string, limit: number | undefined, digest: Record<string, number>): string {
  const h = baseHash(home, agent, holder, limit);
  for (const a of Object.keys(digest).sort()) h.update(`\0${a}\0${digest[a]}`);
  return h.digest('hex');
}

const cachePath = (home: Home, agent: string, limit: number | undefined) => join(home.local, 'cache', `frontier-${agent}-${limit ?? 'all'}.json`);

/** The last answer: one JSON header line, then the text as it was printed (never parsed on reuse). */
export function readCachedFrontier(home: Home, agent: string, limit: number | undefined): CachedFrontier | null {
  try {
    const raw = readFileSync(cachePath(home, agent, limit), 'utf8');
    const nl = raw.indexOf('\n');
    const header = JSON.parse(raw.slice(0, nl)) as Header;
    return header.v === CACHE_VERSION ? { header, text: raw.slice(nl + 1) } : null;
  } catch {
    return null;
  }
}

/** Whether the inputs outside the fingerprints are as they were: the clock window, the checkout, events. */
export function stillValid(home: Home, h: Header, nowMs: number, cwd: string): boolean {
  if ((h.from != null && nowMs < h.from) || (h.until != null && nowMs >= h.until)) return false;
  if (h.workspace && JSON.stringify(readWorkspace(cwd)) !== JSON.stringify(h.workspace)) return false;
  for (const [a, sig] of Object.entries(h.events)) if (eventsSignature(home, a) !== sig) return false;
  if (h.git && !gitUnchanged(h.git, cwd)) return false;
  return true;
}

/** The cached text with `now` set to this call's time. */
export function reuseText(c: CachedFrontier, nowIso: string): string {
  return c.text.replace(`"now": ${JSON.stringify(c.header.now)}`, `"now": ${JSON.stringify(nowIso)}`);
}

export function storeFrontier(home: Home, agent: string, limit: number | undefined, h: Omit<Header, 'v'>, text: string): void {
  writeCache(cachePath(home, agent, limit), JSON.stringify({ v: CACHE_VERSION, ...h }) + '\n' + text, join(home.local, 'tmp'));
}

export function headerFor(fp: string, gfp: string, bounds: { from: number; until: number }, used: InputUse, home: Home, now: string): Omit<Header, 'v'> {
  const events: Record<string, string> = {};
  for (const a of used.eventAgents) events[a] = eventsSignature(home, a);
  return {
    fp, gfp, from: Number.isFinite(bounds.from) ? bounds.from : null, until: Number.isFinite(bounds.until) ? bounds.until : null,
    workspace: used.workspace, events, now,
    git: used.head === undefined ? null : { head: used.head, unknown: used.unknownCommits, ...(used.unknownCommits.length ? { objects: objectsSignature(used.cwd, used.unknownCommits) } : {}) },
  };
}
