import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { observedOf } from '../core/body.js';
import { parseHolonRecord } from '../core/holon-yaml.js';
import { parseMarkdownRecord, RecordParseError, type RecordProblem } from '../core/record-codec.js';
import type { WorkItem } from '../core/types.js';
import { workFromRecord } from '../core/workitem.js';
import { fileKey, writeCache } from './cache-file.js';
import { listAgents, type Home } from './home.js';
import { workDir } from './work-store.js';
import { isLive } from '../core/wait-matching.js';
import { readRecordText } from './record-file.js';

/**
 * The work graph as the frontier needs it: every item's front matter fields without the Markdown body,
 * through a cache in local/cache/graph-AGENT.json. Like work-index.ts, each entry is keyed by its file's
 * inode, size, mtime and ctime, so an edit by holon, by hand or by `git checkout` is always re-read;
 * the cache is small (no bodies, only live waits) so reading it is cheap at 10,000 items.
 */

const VERSION = 10;

type Slim = Partial<WorkItem>;

/** [stat key, slim item or 0, problem or 0]: arrays keep the cache short to parse. */
/** `D`: a plain done item of this agent (most of a home): nothing else about it matters here. */
type Entry = [string, Slim | 'D' | 0, RecordProblem | 0, number];

const FIELDS = [
  // Only what the evaluator or the frontier's output reads: revision and successors change on writes
  // that never change a verdict, and leaving them out lets a cached answer survive those writes.
  // `observed` is the body's freshness facts (newest evidence, commits), not the body itself.
  'title', 'status', 'class', 'action', 'role', 'priority', 'created_at', 'depends_on', 'resume_when',
  'requires', 'repo', 'branch', 'write_scope', 'workspace', 'freshness', 'needs_decision', 'decision_scope', 'exclude', 'claim', 'waits', 'blocker',
  'superseded_by', 'observed',
] as const;

/**
 * A done or superseded item only answers "is it done, what replaced it, what did it decide": most of a
 * home is closed work, so this keeps the cache small. `explain` re-reads its own item in full.
 */
const CLOSED_FIELDS = ['status', 'class', 'decision_scope', 'superseded_by'] as const;

/** An item with a role also answers "who served in that role" (for `exclude: [role:R]` on what follows it). */
const ROLE_FIELDS = ['role', 'claim', 'successors'] as const;

const EMPTY = Object.freeze([]) as unknown as never[];
const NO_EXTRA = Object.freeze({}) as Record<string, unknown>;
const DONE: Slim = Object.freeze({ status: 'done' as const });

/** Only the fields the frontier reads; waits only while live (settled ones never change a verdict). */
export function slimOf(item: WorkItem, agent: string): Slim | 'D' {
  const out: Record<string, unknown> = {};
  // id is the file name; agent is the folder unless the record says otherwise.
  if (item.agent !== agent) out.agent = item.agent;
  const closed = item.status === 'done' || Boolean(item.superseded_by);
  if (item.status === 'done' && !item.superseded_by && item.class !== 'user_gate' && item.agent === agent && !item.role) return 'D';
  if (item.role) {
    for (const f of ROLE_FIELDS) if (item[f] != null && !(Array.isArray(item[f]) && !item[f].length)) out[f] = item[f];
    if (item.delivery?.completed_by) out.delivery = { completed_by: item.delivery.completed_by };
  }
  for (const f of closed ? CLOSED_FIELDS : FIELDS) {
    let v: unknown = item[f];
    // One short string: "evidence_at|evidence_commit|progress_commit" (most open items have some evidence).
    if (f === 'observed' && item.observed) v = `${item.observed.evidence_at ?? ''}|${item.observed.evidence_commit ?? ''}|${item.observed.progress_commit ?? ''}`;
    if (f === 'waits') v = item.waits.filter(isLive).map((w) => ({ id: w.id, kind: w.kind, resource: w.resource, status: w.status, recheck_at: w.recheck_at ?? null, ...(w.due_at ? { due_at: w.due_at } : {}) }));
    if (v == null || (Array.isArray(v) && v.length === 0) || (f === 'class' && v === 'advancement_task')) continue;
    out[f] = v;
  }
  return out as Slim;
}

/** A cached item as a full WorkItem: one object literal, so every item has the same shape (fast to read). */
export function itemOf(s: Slim | 'D', id: string, agent: string): WorkItem {
  if (s === 'D') s = DONE;
  return {
    id, title: s.title ?? '', agent: s.agent ?? agent, status: s.status ?? 'open', class: s.class ?? 'advancement_task',
    action: s.action ?? null, role: s.role ?? null, priority: s.priority ?? null, created_at: s.created_at ?? '', updated_at: '',
    revision: s.revision ?? 0, depends_on: s.depends_on ?? EMPTY, resume_when: s.resume_when ?? EMPTY,
    requires: s.requires ?? EMPTY, repo: s.repo ?? null, branch: s.branch ?? null, write_scope: s.write_scope ?? EMPTY,
    workspace: s.workspace ?? null, freshness: s.freshness ?? null, needs_decision: s.needs_decision ?? EMPTY, decision_scope: s.decision_scope ?? null, exclude: s.exclude ?? EMPTY,
    claim: s.claim ?? null, waits: s.waits ?? EMPTY, blocker: s.blocker ?? null, successors: s.successors ?? EMPTY,
    superseded_by: s.superseded_by ?? null, supersedes: EMPTY, no_followup: null, delivery: (s.delivery as WorkItem['delivery']) ?? null, extra: NO_EXTRA,
    observed: s.observed ? observedFrom(s.observed as unknown as string) : null,
  };
}

function observedFrom(text: string): WorkItem['observed'] {
  if (typeof text !== 'string') return null;
  const [a, c, pc] = text.split('|');
  return { evidence_at: a || null, evidence_commit: c || null, progress_commit: pc || null };
}

export interface LoadedGraph {
  readonly items: WorkItem[];
  /** Loaded entries as (slim, id, agent) triples, before they become items. */
  slims: Array<Slim | 'D' | string>;
  problems: RecordProblem[];
  /**
   * A digest of what was loaded (per agent: the sum of each entry's content hash), independent of the
   * files' bytes elsewhere: a progress note changes a file but not this, so a cached answer stays valid.
   */
  digest: Record<string, number>;
}

/**
 * A 52-bit content hash (two 32-bit FNV-1a variants, one cut to 20 bits), computed only when a file is
 * parsed. Entries are combined by a sum modulo 2^52: order-free, and no pair of entries cancels out.
 */
function contentHash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 2 ** 20 + ((b >>> 0) & 0xfffff);
}

/** The item, through the fast parser for holon's own YAML when it applies, else the full record codec. */
export function readItem(text: string, file: string, id: string): WorkItem {
  const fast = parseHolonRecord(text);
  if (fast) {
    try {
      const item = workFromRecord({ data: fast.data, entries: [], body: '' }, file, id).item;
      item.observed = observedOf(fast.body);
      return item;
    } catch (err) {
      if (!(err instanceof RecordParseError)) throw err;
      // Invalid: the full parse below reports it with its line.
    }
  }
  const rec = parseMarkdownRecord(text, file);
  const item = workFromRecord(rec, file, id).item;
  item.observed = observedOf(rec.body);
  return item;
}

function parseEntry(file: string, id: string, agent: string, key: string): Entry | null {
  let text: string;
  try {
    text = readRecordText(file);
  } catch (err) {
    if (err instanceof RecordParseError) return [key, 0, err.problem, contentHash(`${id}\n${JSON.stringify(err.problem)}`)];
    return null;
  }
  try {
    const slim = slimOf(readItem(text, file, id), agent);
    return [key, slim, 0, contentHash(`${id}\n${JSON.stringify(slim)}`)];
  } catch (err) {
    if (err instanceof RecordParseError) return [key, 0, err.problem, contentHash(`${id}\n${JSON.stringify(err.problem)}`)];
    throw err;
  }
}

/** Above this many files a home is listed with one `find` (stats in C, on the other core). */
const BULK_AT = 1000;
const BULK_BELOW = 500;

/**
 * Lists the work files with inode, size, mtime and ctime in one GNU `find` process: at 10,000 files this
 * costs the command far less than 10,000 statSync calls, and it runs while the cache is parsed. Resolves
 * null where find cannot do it (no GNU find): the caller then stats file by file.
 */
function findKeys(dir: string): Promise<Map<string, string> | null> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('find', [dir, '-maxdepth', '1', '-name', '*.md', '-type', 'f', '-printf', '%f\\t%i:%s:%T@:%C@\\n'], { stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return resolve(null);
    }
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', () => resolve(null));
    child.on('close', (code) => {
      if (code !== 0) return resolve(null);
      const keys = new Map<string, string>();
      for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
        const tab = line.indexOf('\t');
        if (tab > 0) keys.set(line.slice(0, tab), line.slice(tab + 1));
      }
      resolve(keys);
    });
  });
}

function statKeys(dir: string): Map<string, string> | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  const keys = new Map<string, string>();
  const prefix = dir + '/';
  for (const name of names) {
    if (!name.endsWith('.md')) continue;
    const key = fileKey(prefix + name);
    if (key) keys.set(name, key);
  }
  return keys;
}

function readEntries(path: string): Record<string, Entry> | null {
  try {
    const c = JSON.parse(readFileSync(path, 'utf8'));
    if (c.version === VERSION && c.entries) return c.entries;
  } catch {
    // No cache yet, or a broken one: rebuild it.
  }
  return null;
}

/** One agent's work files and their keys, and the cache file that matches how the keys were read. */
export interface Listing {
  agent: string;
  keys: Map<string, string>;
  cachePath: string;
}

/**
 * Lists an agent's work files with their keys. The two ways of reading keys (one `find`, or a stat per
 * file) write differently shaped keys, so each has its own cache file (graph-A.find.json, graph-A.json);
 * a home that grows past BULK_AT switches once, one that shrinks below BULK_BELOW switches back.
 */
export async function listAgentWork(home: Home, agent: string): Promise<Listing | null> {
  const dir = workDir(home, agent);
  const cacheDir = join(home.local, 'cache');
  const bulkPath = join(cacheDir, `graph-${agent}.find.json`);
  const statPath = join(cacheDir, `graph-${agent}.json`);
  if (!process.env.HOLON_NO_FIND && existsSync(bulkPath)) {
    const keys = await findKeys(dir);
    if (keys && keys.size >= BULK_BELOW) return { agent, keys, cachePath: bulkPath };
    rmSync(bulkPath, { force: true });
  }
  const keys = statKeys(dir);
  if (!keys) return null;
  if (keys.size >= BULK_AT && !process.env.HOLON_NO_FIND) {
    const bulk = await findKeys(dir);
    if (bulk) return { agent, keys: bulk, cachePath: bulkPath };
  }
  return { agent, keys, cachePath: statPath };
}

function cachedCount(c: Record<string, Entry>): number {
  let n = 0;
  for (const _ in c) n++;
  return n;
}

/** Reads the listed items: cached entries where the key still matches, a parse where it does not. */
export function loadListed(home: Home, listing: Listing, out: LoadedGraph): void {
  const { agent, keys, cachePath } = listing;
  // Updated in place: building a second 10,000-key object per call costs more than the rest.
  const entries = readEntries(cachePath) ?? {};
  let dirty = false;
  let count = 0;
  let digest = 0;
  const prefix = workDir(home, agent) + '/';
  for (const [name, key] of keys) {
    let entry = entries[name];
    const id = name.slice(0, -3);
    if (!entry || entry[0] !== key) {
      const parsed = parseEntry(prefix + name, id, agent, key);
      if (!parsed) continue;
      entries[name] = entry = parsed;
      dirty = true;
    }
    count++;
    digest = (digest + entry[3]) % 2 ** 52;
    if (entry[1]) out.slims.push(entry[1], id, agent);
    else if (entry[2]) out.problems.push(entry[2]);
  }
  if (count !== cachedCount(entries)) {
    // Files that disappeared leave entries behind.
    for (const name of Object.keys(entries)) if (!keys.has(name)) delete entries[name];
    dirty = true;
  }
  out.digest[agent] = digest;
  if (dirty) writeCache(cachePath, JSON.stringify({ version: VERSION, entries }), join(home.local, 'tmp'));
}

export async function listAll(home: Home, agents = listAgents(home)): Promise<Listing[]> {
  const out: Listing[] = [];
  for (const a of agents) {
    const l = await listAgentWork(home, a);
    if (l) out.push(l);
  }
  return out;
}

export function loadListings(home: Home, listings: Listing[]): LoadedGraph {
  const slims: Array<Slim | 'D' | string> = [];
  let items: WorkItem[] | undefined;
  const out: LoadedGraph = {
    slims,
    problems: [],
    digest: {},
    // Built on first use: a frontier whose answer is reused (same digest) never needs the items.
    get items() {
      if (!items) {
        items = [];
        for (let i = 0; i < slims.length; i += 3) items.push(itemOf(slims[i] as Slim | 'D', slims[i + 1] as string, slims[i + 2] as string));
      }
      return items;
    },
  };
  // Listing order (directory order) is not sorted: the evaluator orders everything it prints itself.
  for (const l of listings) loadListed(home, l, out);
  return out;
}

/** Every agent's items, graph fields only. */
export async function loadGraph(home: Home, agents = listAgents(home)): Promise<LoadedGraph> {
  return loadListings(home, await listAll(home, agents));
}
