import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseHolonRecord } from '../core/holon-yaml.js';
import { parseMarkdownRecord, RecordParseError, type RecordProblem } from '../core/record-codec.js';
import { summaryOf, workFromRecord, type WorkSummary } from '../core/workitem.js';
import { writeFileAtomic } from './atomic-write.js';
import { RACY_MS } from './cache-file.js';
import { listAgents, type Home } from './home.js';
import { workDir } from './work-store.js';
import { readRecordText } from './record-file.js';

/**
 * Reads every WorkItem of some agents, through a cache in local/cache keyed by each file's
 * inode, size, mtime and ctime. holon writes by rename (new inode), editors and `git checkout`
 * change mtime/ctime, so a changed file is always re-parsed; the cache only saves parsing.
 */

// 7 on two branches (roles and freshness; the racy rule); 8 after both.
const CACHE_VERSION = 8;

interface CacheEntry {
  k: string;
  v?: Partial<WorkSummary>;
  p?: RecordProblem;
}

interface CacheFile {
  version: number;
  entries: Record<string, CacheEntry>;
}

export interface LoadedWork {
  items: WorkSummary[];
  /** The file each item was read from, index for index. */
  files: string[];
  problems: RecordProblem[];
}

/**
 * A file's key, and whether it is racy: changed within RACY_MS (cache-file.ts) of now, so a second change in the same
 * timestamp tick could keep the key (the argument is there). A racy file's entry is stored
 * under a key no stat gives, so the next call parses it again.
 */

function statKey(file: string, since: number): { key: string; racy: boolean } | null {
  try {
    const s = statSync(file, { bigint: false });
    return { key: `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`, racy: s.ctimeMs > since || s.mtimeMs > since };
  } catch {
    return null;
  }
}

function readCache(path: string): CacheFile {
  try {
    const c = JSON.parse(readFileSync(path, 'utf8')) as CacheFile;
    if (c.version === CACHE_VERSION && c.entries) return c;
  } catch {
    // Missing or unreadable cache: rebuild it.
  }
  return { version: CACHE_VERSION, entries: {} };
}

/** Cache entries leave out empty values (most fields, most of the time); `expand` restores them. */
function compact(v: WorkSummary): Partial<WorkSummary> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === '' || (Array.isArray(x) && x.length === 0) || (k === 'extra' && Object.keys(x as object).length === 0)) continue;
    out[k] = x;
  }
  return out as Partial<WorkSummary>;
}

const EMPTY: Omit<WorkSummary, 'id' | 'title' | 'status'> = {
  agent: '', class: 'advancement_task', action: null, role: null, priority: null, created_at: '', updated_at: '', revision: 0,
  depends_on: [], resume_when: [], requires: [], repo: null, branch: null, write_scope: [], workspace: null, freshness: null, needs_decision: [],
  decision_scope: null, exclude: [], claim: null, waits: [], blocker: null, successors: [], superseded_by: null, supersedes: [],
  no_followup: null, delivery: null, extra: {}, objective: '', acceptance: [], progress: [], evidence: [], on_return: '', progress_count: 0, evidence_count: 0, last_progress: null,
};

function expand(c: Partial<WorkSummary>): WorkSummary {
  return { ...EMPTY, ...c } as WorkSummary;
}

export function parseWorkSummary(text: string, file: string, id: string): CacheEntry {
  // holon's own records take the fast parser; anything else (or anything invalid) the full codec,
  // which reports problems with their lines.
  const fast = parseHolonRecord(text);
  if (fast) {
    try {
      return { k: '', v: compact(summaryOf(workFromRecord({ data: fast.data, entries: [], body: fast.body }, file, id))) };
    } catch (err) {
      if (!(err instanceof RecordParseError)) throw err;
    }
  }
  try {
    return { k: '', v: compact(summaryOf(workFromRecord(parseMarkdownRecord(text, file), file, id))) };
  } catch (err) {
    if (err instanceof RecordParseError) return { k: '', p: err.problem };
    throw err;
  }
}

export function loadAgentWork(home: Home, agent: string): LoadedWork {
  const dir = workDir(home, agent);
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.md'));
  } catch {
    return { items: [], files: [], problems: [] };
  }
  const cachePath = join(home.local, 'cache', `work-${agent}.json`);
  const cache = readCache(cachePath);
  const next: Record<string, CacheEntry> = {};
  let dirty = false;
  const items: WorkSummary[] = [];
  const files: string[] = [];
  const problems: RecordProblem[] = [];
  const since = Date.now() - RACY_MS;
  for (const name of names.sort()) {
    const file = join(dir, name);
    const stat = statKey(file, since);
    if (stat === null) continue;
    const key = stat.racy ? `~${stat.key}` : stat.key;
    let entry = cache.entries[name];
    if (!entry || entry.k !== key || stat.racy) {
      let text: string;
      try {
        text = readRecordText(file);
      } catch (err) {
        if (!(err instanceof RecordParseError)) continue;
        // Not a regular file (a FIFO, a folder): skipped and reported, never read.
        entry = { p: err.problem, k: key };
        next[name] = entry;
        problems.push(err.problem);
        dirty = true;
        continue;
      }
      entry = { ...parseWorkSummary(text, file, name.slice(0, -3)), k: key };
      dirty = true;
    }
    next[name] = entry;
    if (entry.v) {
      items.push(expand(entry.v));
      files.push(file);
    }
    else if (entry.p) problems.push(entry.p);
  }
  if (dirty || Object.keys(cache.entries).length !== names.length) {
    try {
      mkdirSync(dirname(cachePath), { recursive: true });
      writeFileAtomic(cachePath, JSON.stringify({ version: CACHE_VERSION, entries: next }), join(home.local, 'tmp'));
    } catch {
      // A read-only home still reads; it just parses every time.
    }
  }
  return { items, files, problems };
}

/** Every agent's WorkItems (or the named agents'). */
export function loadAllWork(home: Home, agents = listAgents(home)): LoadedWork {
  const out: LoadedWork = { items: [], files: [], problems: [] };
  for (const a of agents) {
    const r = loadAgentWork(home, a);
    out.items.push(...r.items);
    out.files.push(...r.files);
    out.problems.push(...r.problems);
  }
  return out;
}
