import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Workspace } from '../core/frontier.js';
import { VERSION } from '../version.js';
import { writeCache } from './cache-file.js';
import { capabilityCachePath } from './capabilities.js';
import { eventsSignature, type InputUse } from './frontier-input.js';
import type { Listing } from './graph-index.js';
import { agentDir, type Home } from './home.js';
import { readWorkspace } from './workspace.js';

/**
 * The last frontier of an agent, reused while nothing it depends on changed: the fingerprint covers
 * every work file's inode/size/mtime/ctime (all agents), holon.yaml, the agent's AGENTS.md, the
 * capability cache, the holder and the limit; the entry also records the git checkout and event
 * folders when the evaluation looked at them, and the time window in which no lease ends and no
 * at: condition falls due. Outside any of these it is recomputed, so a hand edit or a `git checkout`
 * is always seen.
 */

const CACHE_VERSION = 2;

interface Entry {
  v: number;
  fp: string;
  from: number | null;
  until: number | null;
  workspace: Workspace | null;
  events: Record<string, string>;
  now: string;
}

const CODE = ['../core/frontier.js', '../core/frontier-checks.js', './frontier-cache.js'].map((r) => fileURLToPath(new URL(r, import.meta.url)));

const statSig = (file: string) => {
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : '-';
};

export function frontierFingerprint(home: Home, agent: string, holder: string, limit: number | undefined, listings: Listing[]): string {
  const h = createHash('sha1');
  h.update(`${CACHE_VERSION}\0${VERSION}\0${agent}\0${holder}\0${limit ?? 'all'}\0`);
  h.update(JSON.stringify(home.config));
  // A rebuilt holon (new evaluator code) never serves an answer of the old one.
  for (const f of CODE) h.update(statSig(f));
  h.update(statSig(join(agentDir(home, agent), 'AGENTS.md')));
  h.update(statSig(capabilityCachePath(home)));
  for (const l of listings) {
    h.update(`\0${l.agent}\0`);
    for (const [name, key] of l.keys) h.update(`${name}=${key}\n`);
  }
  return h.digest('hex');
}

const cachePath = (home: Home, agent: string, limit: number | undefined) => join(home.local, 'cache', `frontier-${agent}-${limit ?? 'all'}.json`);

/**
 * The cached frontier text (pretty JSON, `now` updated) when it is still exactly what we would compute.
 * The file is one JSON header line, then the text as it was printed: a hit never parses the text.
 */
export function cachedFrontier(home: Home, agent: string, limit: number | undefined, fp: string, nowMs: number, nowIso: string, cwd: string): string | null {
  let raw: string;
  let e: Entry;
  try {
    raw = readFileSync(cachePath(home, agent, limit), 'utf8');
    e = JSON.parse(raw.slice(0, raw.indexOf('\n'))) as Entry;
  } catch {
    return null;
  }
  if (e.v !== CACHE_VERSION || e.fp !== fp) return null;
  if ((e.from != null && nowMs < e.from) || (e.until != null && nowMs >= e.until)) return null;
  if (e.workspace && JSON.stringify(readWorkspace(cwd)) !== JSON.stringify(e.workspace)) return null;
  for (const [a, sig] of Object.entries(e.events)) if (eventsSignature(home, a) !== sig) return null;
  const text = raw.slice(raw.indexOf('\n') + 1);
  return text.replace(`"now": ${JSON.stringify(e.now)}`, `"now": ${JSON.stringify(nowIso)}`);
}

export function storeFrontier(home: Home, agent: string, limit: number | undefined, fp: string, bounds: { from: number; until: number }, used: InputUse, now: string, text: string): void {
  const events: Record<string, string> = {};
  for (const a of used.eventAgents) events[a] = eventsSignature(home, a);
  const e: Entry = {
    v: CACHE_VERSION, fp, from: Number.isFinite(bounds.from) ? bounds.from : null, until: Number.isFinite(bounds.until) ? bounds.until : null,
    workspace: used.workspace, events, now,
  };
  writeCache(cachePath(home, agent, limit), JSON.stringify(e) + '\n' + text, join(home.local, 'tmp'));
}
