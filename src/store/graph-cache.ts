import { appendFileSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeCache } from './cache-file.js';
import { VERSION as APP_VERSION } from '../version.js';
import { BUILD_ID } from '../build-id.js';
import type { Home } from './home.js';
import type { Entry } from './graph-entry.js';

/**
 * The graph cache is a base file (every entry, written whole by temp file + rename) and a patch log
 * beside it (graph-A.log): one JSON line per entry changed since, `[name, entry]`, or `[name, 0]` for a
 * file that is gone. A change of one item appends one line instead of rewriting 10,000 entries; the log
 * is folded into the base once it grows past a tenth of it. Every entry carries its file's key and is
 * used only while that key matches, so any interleaving of writers (a lost line, a line replayed onto a
 * newer base, a torn last line, which does not parse) can only cost a parse, never serve stale data.
 */

// 9: budgets in slim items (issue 17); 10: freshness facts and roles (issue 16) or per-item log
// patches (speedfront); 11: all of them; 12: the build stamp in the base, in each log line and in the idx;
// 13: the title apart from the content hash (entries carry its own hash); 14: the priority too.
export const VERSION = 14;

/**
 * Which code wrote a cache entry: the cache layout, holon's version and its build id. Builds differ in
 * what an entry holds (slimOf) and how it is hashed, and an old build's watcher may still be running
 * (its chunks are kept) beside a newer CLI, both writing the same files: the base, every log line and
 * the idx carry the stamp, and anything stamped otherwise (or not at all) is ignored, never trusted.
 */
// A plain string, not a hash: a short command must not load node:crypto for it (test/cli/bundle.test.ts).
export const GRAPH_STAMP = `${VERSION}/${APP_VERSION}/${BUILD_ID}`;

/** One line of the patch log: `[name, entry or 0 (gone), stamp]`. */
export const logLine = (name: string, entry: Entry | 0) => JSON.stringify([name, entry, GRAPH_STAMP]) + '\n';

const logOf = (cachePath: string) => cachePath.slice(0, -'.json'.length) + '.log';

export function readEntries(path: string): { entries: Record<string, Entry>; logged: number } {
  let entries: Record<string, Entry> | null = null;
  try {
    const c = JSON.parse(readFileSync(path, 'utf8'));
    if (c.version === VERSION && c.build === GRAPH_STAMP && c.entries) entries = c.entries;
  } catch {
    // No cache yet, or a broken one: rebuild it.
  }
  if (!entries) return { entries: {}, logged: Infinity };
  let logged = 0;
  let log: string;
  try {
    log = readFileSync(logOf(path), 'utf8');
  } catch {
    return { entries, logged };
  }
  for (const line of log.split('\n')) {
    if (!line) continue;
    logged++;
    try {
      const [name, entry, stamp] = JSON.parse(line) as [string, Entry | 0, string?];
      // Written by another build (or before lines had stamps): not trusted; its file is parsed again.
      if (stamp !== GRAPH_STAMP) continue;
      if (entry) entries[name] = entry;
      else delete entries[name];
    } catch {
      // A torn line (a writer interrupted): its file is parsed again.
    }
  }
  return { entries, logged };
}

/** Appends lines to the patch log; false if it cannot (a read-only home): the files are then parsed again. */
export function appendLog(cachePath: string, text: string): boolean {
  try {
    appendFileSync(logOf(cachePath), text);
    return true;
  } catch {
    return false;
  }
}

/** Changed entries, as `[name, entry or 0]`: turned into log lines only when they go to the log. */
export type Patch = Array<[string, Entry | 0]>;

export function writeEntries(home: Home, cachePath: string, entries: Record<string, Entry>, count: number, logged: number, patch: Patch): void {
  // A short log takes the patch; past a tenth of the base, or where it cannot be appended (a read-only
  // home, a missing folder), the base is written whole.
  if (logged + patch.length <= Math.max(64, count / 10) && appendLog(cachePath, patch.map(([name, entry]) => logLine(name, entry)).join(''))) return;
  writeCache(cachePath, baseParts(entries), join(home.local, 'tmp'));
  // After the base: a crash in between replays the log onto it, which is harmless (see above). The
  // second file is what holon wrote when it listed big homes with `find`: no longer read.
  for (const old of [logOf(cachePath), cachePath.slice(0, -'.json'.length) + '.find.json']) {
    try {
      unlinkSync(old);
    } catch {
      // None.
    }
  }
}

/**
 * The base's JSON text (the same as JSON.stringify of `{version, build, entries}`) in parts of a few
 * thousand entries: at 50,000 items the whole text is some 8 MB, and holding it (and its bytes) at
 * once raised a cold frontier's peak memory by about twice that. Each part is one JSON.stringify of an
 * object of those entries (its braces dropped): half the cpu of a stringify per entry, whose calls
 * and concatenations cost more than the text they make. (The order of the names does not matter;
 * a listed name ends in `.md`, never an array index, so the object keeps it anyway.)
 */
function* baseParts(entries: Record<string, Entry>): Generator<string> {
  yield `{"version":${VERSION},"build":${JSON.stringify(GRAPH_STAMP)},"entries":{`;
  const names = Object.keys(entries);
  for (let from = 0; from < names.length; from += 2000) {
    const part: Record<string, Entry> = {};
    for (let i = from; i < Math.min(from + 2000, names.length); i++) part[names[i]] = entries[names[i]];
    const text = JSON.stringify(part);
    yield `${from ? ',' : ''}${text.slice(1, -1)}`;
  }
  yield '}}';
}

// Object.keys counts in C++; a for-in loop over 50,000 keys costs tens of milliseconds here.
export const cachedCount = (c: Record<string, Entry>): number => Object.keys(c).length;
