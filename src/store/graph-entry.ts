import { observedOf } from '../core/body.js';
import { parseHolonRecord } from '../core/holon-yaml.js';
import { parseMarkdownRecord, RecordParseError, type RecordProblem } from '../core/record-codec.js';
import type { WorkItem } from '../core/types.js';
import { workFromRecord } from '../core/workitem.js';
import { readRecordText } from './record-file.js';
import { sha1Hex } from './sha1.js';
import { slimOf, type Slim } from './graph-slim.js';

/**
 * One graph cache entry (graph-index.ts): how a work file is read into it, and the hashes the
 * frontier's digest and its entry index are made of.
 */

/**
 * [stat key, slim item or 0, problem or 0, content hash, title hash, priority hash]: arrays keep the
 * cache short to parse. `D`: a plain done item of this agent (most of a home): nothing else about it
 * matters here. The content hash covers all the slim but its title and priority: a new title changes
 * no verdict, no order and no count, only the text of that item's entry, and a new priority only
 * moves that entry within its channel; the frontier patches both into its answer (frontier-titles.ts).
 * Both hashes are 0 for an item whose slim keeps neither (a closed one, a problem).
 */
export type Entry = [string, Slim | 'D' | 0, RecordProblem | 0, number, number, number];

/**
 * A 52-bit content hash (the first 52 bits of a SHA-1), computed only when a file is parsed. Entries are combined by a sum modulo 2^52: order-free, and no pair of entries cancels out.
 */
export const contentHash = (text: string): number => parseInt(sha1Hex(text).slice(0, 13), 16);

export const HASH_MOD = 2 ** 52;

/** Two content hashes (or sums of them) added modulo 2^52; a subtraction, not `%`, runs 50,000 times a call. */
export function addHash(a: number, b: number): number {
  const s = a + b;
  return s >= HASH_MOD ? s - HASH_MOD : s;
}

/** `a` less a hash `b`, modulo 2^52. */
export function subHash(a: number, b: number): number {
  const s = a - b;
  return s < 0 ? s + HASH_MOD : s;
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

/** `read`, when given, sees the text the entry is parsed from (the content cache's `learn`). */
export function parseEntry(file: string, id: string, agent: string, key: string, listedRegular: boolean, read?: (text: string) => void): Entry | null {
  let text: string;
  try {
    text = readRecordText(file, listedRegular);
  } catch (err) {
    if (err instanceof RecordParseError) return problemEntry(key, id, err.problem);
    return null;
  }
  read?.(text);
  try {
    const slim = slimOf(readItem(text, file, id), agent);
    // A closed item's slim keeps neither title nor priority (graph-slim.ts).
    if (slim === 'D' || slim.title === undefined) return [key, slim, 0, contentHash(`${id}\n${JSON.stringify(slim)}`), 0, 0];
    // JSON leaves out a property set to undefined: the text without them, and no copy of the slim.
    const { title, priority } = slim;
    slim.title = undefined;
    if (priority !== undefined) slim.priority = undefined;
    const json = JSON.stringify(slim);
    slim.title = title;
    if (priority !== undefined) slim.priority = priority;
    return [key, slim, 0, contentHash(`${id}\n${json}`), titleHash(id, title), prioHash(id, priority ?? null)];
  } catch (err) {
    if (err instanceof RecordParseError) return problemEntry(key, id, err.problem);
    throw err;
  }
}

/** A racy file's entry, stored under a key no listing gives, so the next call parses it again. */
export const neverMatching = (e: Entry): Entry => ['~' + e[0], e[1], e[2], e[3], e[4], e[5]];

const problemEntry = (key: string, id: string, problem: RecordProblem): Entry => [key, 0, problem, contentHash(`${id}\n${JSON.stringify(problem)}`), 0, 0];

/**
 * The hash of an item's title as the snapshot keeps it (never 0, which means "no title"). With the
 * id: two items that swap titles change the snapshot's sum of title hashes (stat-index.ts).
 */
export const titleHash = (id: string, title: string) => contentHash(`title\n${id}\n${title}`) || 1;

/** The hash of an open item's priority as the snapshot keeps it (never 0, which means "not kept"); with the id, as titleHash. */
export const prioHash = (id: string, priority: string | null) => contentHash(`priority\n${id}\n${priority ?? ''}`) || 1;

/** An item's title and priority, read from its file now (the frontier patches an entry whose either changed). */
export function readShown(file: string, id: string): { title: string; priority: string | null } | null {
  try {
    const item = readItem(readRecordText(file, true), file, id);
    return { title: item.title, priority: item.priority };
  } catch {
    return null;
  }
}


