import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseMarkdownRecord, RecordParseError, type RecordProblem } from '../core/record-codec.js';
import type { WorkItem } from '../core/types.js';
import { workFromRecord } from '../core/workitem.js';
import { writeFileAtomic } from './atomic-write.js';
import { listAgents, type Home } from './home.js';
import { workDir } from './work-store.js';

/**
 * The work graph as the frontier needs it: every item's front matter fields without the Markdown body,
 * through a cache in local/cache/graph-AGENT.json. Like work-index.ts, each entry is keyed by its file's
 * inode, size, mtime and ctime, so an edit by holon, by hand or by `git checkout` is always re-read;
 * the cache is small (no bodies, only live waits) so reading it is cheap at 10,000 items.
 */

const VERSION = 3;

type Slim = Partial<WorkItem>;

/** [stat key, slim item or 0, problem or 0]: arrays keep the cache short to parse. */
type Entry = [string, Slim | 0, RecordProblem | 0];

const FIELDS = [
  'title', 'status', 'class', 'action', 'priority', 'created_at', 'revision', 'depends_on', 'resume_when',
  'requires', 'repo', 'branch', 'write_scope', 'needs_decision', 'decision_scope', 'exclude', 'claim', 'waits', 'blocker',
  'successors', 'superseded_by',
] as const;

/**
 * A done or superseded item only answers "is it done, what replaced it, what did it decide": most of a
 * home is closed work, so this keeps the cache small. `explain` re-reads its own item in full.
 */
const CLOSED_FIELDS = ['status', 'class', 'decision_scope', 'superseded_by'] as const;

const EMPTY: readonly never[] = Object.freeze([]);
const DEFAULTS: WorkItem = {
  id: '', title: '', agent: '', status: 'open', class: 'advancement_task', action: null, priority: null, created_at: '',
  updated_at: '', revision: 0, depends_on: EMPTY as never, resume_when: EMPTY as never, requires: EMPTY as never, repo: null,
  branch: null, write_scope: EMPTY as never, needs_decision: EMPTY as never, decision_scope: null, exclude: EMPTY as never,
  claim: null, waits: EMPTY as never, blocker: null, successors: EMPTY as never, superseded_by: null, no_followup: null,
  delivery: null, extra: {},
};

/** Only the fields the frontier reads; waits only while live (settled ones never change a verdict). */
export function slimOf(item: WorkItem, agent: string): Slim {
  const out: Record<string, unknown> = {};
  // id is the file name; agent is the folder unless the record says otherwise.
  if (item.agent !== agent) out.agent = item.agent;
  const closed = item.status === 'done' || Boolean(item.superseded_by);
  for (const f of closed ? CLOSED_FIELDS : FIELDS) {
    let v: unknown = item[f];
    if (f === 'waits') v = item.waits.filter((w) => w.status === 'active' || w.status === 'triggered').map((w) => ({ id: w.id, kind: w.kind, resource: w.resource, status: w.status, recheck_at: w.recheck_at ?? null }));
    if (v == null || (Array.isArray(v) && v.length === 0) || v === DEFAULTS[f]) continue;
    out[f] = v;
  }
  return out as Slim;
}

export const itemOf = (s: Slim, id: string, agent: string): WorkItem => ({ ...DEFAULTS, id, agent, ...s });

export interface LoadedGraph {
  items: WorkItem[];
  problems: RecordProblem[];
}

function parseEntry(file: string, id: string, agent: string, key: string): Entry | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    return [key, slimOf(workFromRecord(parseMarkdownRecord(text, file), file, id).item, agent), 0];
  } catch (err) {
    if (err instanceof RecordParseError) return [key, 0, err.problem];
    throw err;
  }
}

export function loadAgentGraph(home: Home, agent: string, out: LoadedGraph): void {
  const dir = workDir(home, agent);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const cachePath = join(home.local, 'cache', `graph-${agent}.json`);
  let cached: Record<string, Entry> = {};
  try {
    const c = JSON.parse(readFileSync(cachePath, 'utf8'));
    if (c.version === VERSION && c.entries) cached = c.entries;
  } catch {
    // No cache yet, or a broken one: rebuild it.
  }
  const next: Record<string, Entry> = {};
  let dirty = false;
  let count = 0;
  const prefix = dir + '/';
  for (const name of names) {
    if (!name.endsWith('.md')) continue;
    const file = prefix + name;
    const s = statSync(file, { throwIfNoEntry: false });
    if (!s) continue;
    const key = `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    let entry = cached[name];
    if (!entry || entry[0] !== key) {
      const parsed = parseEntry(file, name.slice(0, -3), agent, key);
      if (!parsed) continue;
      entry = parsed;
      dirty = true;
    }
    next[name] = entry;
    count++;
    if (entry[1]) out.items.push(itemOf(entry[1], name.slice(0, -3), agent));
    else if (entry[2]) out.problems.push(entry[2]);
  }
  if (dirty || Object.keys(cached).length !== count) {
    try {
      mkdirSync(join(home.local, 'cache'), { recursive: true });
      writeFileAtomic(cachePath, JSON.stringify({ version: VERSION, entries: next }), join(home.local, 'tmp'));
    } catch {
      // A read-only home still works; it parses every time.
    }
  }
}

/** Every agent's items, graph fields only. */
export function loadGraph(home: Home, agents = listAgents(home)): LoadedGraph {
  const out: LoadedGraph = { items: [], problems: [] };
  for (const a of agents) loadAgentGraph(home, a, out);
  return out;
}
