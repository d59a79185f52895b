import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseMarkdownRecord, RecordParseError, type RecordProblem } from '../core/record-codec.js';
import { viewOf, workFromRecord, type WorkView } from '../core/workitem.js';
import { writeFileAtomic } from './atomic-write.js';
import { listAgents, type Home } from './home.js';
import { workDir } from './work-store.js';

/**
 * Reads every WorkItem of some agents, through a cache in local/cache keyed by each file's
 * inode, size, mtime and ctime. holon writes by rename (new inode), editors and `git checkout`
 * change mtime/ctime, so a changed file is always re-parsed; the cache only saves parsing.
 */

const CACHE_VERSION = 2;

interface CacheEntry {
  k: string;
  v?: WorkView;
  p?: RecordProblem;
}

interface CacheFile {
  version: number;
  entries: Record<string, CacheEntry>;
}

export interface LoadedWork {
  items: WorkView[];
  /** The file each item was read from, index for index. */
  files: string[];
  problems: RecordProblem[];
}

function statKey(file: string): string | null {
  try {
    const s = statSync(file, { bigint: false });
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
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

export function parseWorkView(text: string, file: string, id: string): CacheEntry {
  try {
    return { k: '', v: viewOf(workFromRecord(parseMarkdownRecord(text, file), file, id)) };
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
  const items: WorkView[] = [];
  const files: string[] = [];
  const problems: RecordProblem[] = [];
  for (const name of names.sort()) {
    const file = join(dir, name);
    const key = statKey(file);
    if (key === null) continue;
    let entry = cache.entries[name];
    if (!entry || entry.k !== key) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      entry = { ...parseWorkView(text, file, name.slice(0, -3)), k: key };
      dirty = true;
    }
    next[name] = entry;
    if (entry.v) {
      items.push(entry.v);
      files.push(file);
    }
    else if (entry.p) problems.push(entry.p);
  }
  if (dirty || Object.keys(cache.entries).length !== names.length) {
    try {
      mkdirSync(join(home.local, 'cache'), { recursive: true });
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
