import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from './random.js';
import { notFound, invalid } from '../core/errors.js';
import { assertSafeId, closeMatches, formatId } from '../core/ids.js';
import { parseYamlRecord, RecordParseError, yamlValue, type RecordProblem } from '../core/record-codec.js';
import { TIMER_KEYS, TIMER_STATUSES, type Timer } from '../core/schedule.js';
import { parseDuration } from '../core/time.js';
import { writeFileAtomic } from './atomic-write.js';
import { agentDir, listAgents, type Home } from './home.js';
import { withLock } from './lock.js';
import { problemError } from './work-store.js';
import { readRecordText } from './record-file.js';

/** One timer per file: agents/A/timers/ID.yaml. */
export const timersDir = (home: Home, agent: string) => join(agentDir(home, agent), 'timers');
export const timerFile = (home: Home, agent: string, id: string) => join(timersDir(home, agent), `${assertSafeId(id, 'timer id')}.yaml`);

export const newTimerId = () => formatId('t', randomBytes(8));

export function serializeTimer(t: Timer): string {
  const ordered: Record<string, unknown> = {};
  for (const k of TIMER_KEYS) ordered[k] = t[k];
  return yamlValue(ordered) + '\n';
}

const TIMER_EXAMPLE = 'id: "t-4f2a9c1k"\nstatus: active\nfirst_due_at: "2026-11-30T17:00:00Z"\nnext_due_at: "2026-11-30T17:00:00Z"';

/** Problems of a timer record's fields (also used by `holon check`). */
export function checkTimerData(d: Record<string, unknown>, file: string, id: string): RecordProblem[] {
  const p: RecordProblem[] = [];
  const add = (message: string, fix: string) => p.push({ file, line: 1, message, fix });
  if (d.id !== id) add(`id "${String(d.id)}" does not match the file name "${id}.yaml"`, `set id: "${id}"`);
  if (!TIMER_STATUSES.includes(d.status as never)) add(`unknown timer status "${String(d.status)}"`, `status is one of ${TIMER_STATUSES.join(', ')}`);
  for (const k of ['first_due_at', 'next_due_at', 'until', 'last_fired_at'] as const) {
    if (d[k] != null && Number.isNaN(Date.parse(String(d[k])))) add(`${k} "${String(d[k])}" is not a time`, `${k}: "2026-11-30T17:00:00Z"`);
  }
  if (d.status === 'active' && !d.next_due_at) add('an active timer has no next_due_at', TIMER_EXAMPLE);
  if (d.every != null) {
    let ms: number | null = null;
    try {
      ms = parseDuration(String(d.every));
    } catch {
      add(`every "${String(d.every)}" is not a duration`, 'every: "1h"');
    }
    // As \`timer add --every\` refuses: a sub-second repeat would fire on every pass of the watcher.
    if (ms !== null && (ms < 1000 || ms % 1000)) add(`every "${String(d.every)}" is not a whole number of seconds of at least 1s`, 'every: "1s", "90s" or "1h"');
  }
  return p;
}

export function timerFromData(d: Record<string, unknown>): Timer {
  const str = (v: unknown) => (v == null ? null : String(v));
  return {
    id: String(d.id),
    agent: String(d.agent ?? ''),
    work_item: str(d.work_item),
    summary: str(d.summary),
    status: d.status as Timer['status'],
    created_at: String(d.created_at ?? ''),
    first_due_at: String(d.first_due_at ?? d.next_due_at ?? ''),
    every: str(d.every),
    until: str(d.until),
    next_due_at: str(d.next_due_at),
    last_fired_at: str(d.last_fired_at),
    last_slot_at: str(d.last_slot_at),
    fire_count: Number(d.fire_count ?? 0),
    missed_count: Number(d.missed_count ?? 0),
    cancelled_at: str(d.cancelled_at),
    revision: Number(d.revision ?? 1),
  };
}

/** Reads a timer; a malformed one is an error naming the file and what to fix. */
export function readTimerFile(file: string, id: string): Timer {
  let text: string;
  try {
    text = readRecordText(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`no timer file ${file}`);
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
  try {
    const data = parseYamlRecord(text, file, TIMER_EXAMPLE).data;
    const problems = checkTimerData(data, file, id);
    if (problems.length) throw problemError(problems[0]);
    return timerFromData(data);
  } catch (err) {
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
}

export function timerIds(home: Home, agent: string): string[] {
  try {
    return readdirSync(timersDir(home, agent)).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
  } catch {
    return [];
  }
}

function statKey(file: string): string | null {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return null;
  }
}

const TIMER_CACHE_VERSION = 1;
type TimerCache = { version: number; entries: Record<string, { k: string; t?: Timer; p?: RecordProblem }> };

/**
 * An agent's timers; unreadable ones are returned as problems and skipped. Parsed records are cached
 * in local/cache keyed by each file's inode, size, mtime and ctime (as the work index does), so the
 * watcher's `nextDueMs` over many timers costs stats, not YAML parses.
 */
export function listTimers(home: Home, agent: string): { timers: Timer[]; problems: RecordProblem[] } {
  const cachePath = join(home.local, 'cache', `timers-${agent}.json`);
  let cache: TimerCache = { version: TIMER_CACHE_VERSION, entries: {} };
  try {
    const c = JSON.parse(readFileSync(cachePath, 'utf8')) as TimerCache;
    if (c.version === TIMER_CACHE_VERSION && c.entries) cache = c;
  } catch {
    // no cache yet
  }
  const next: TimerCache['entries'] = {};
  let dirty = false;
  const timers: Timer[] = [];
  const problems: RecordProblem[] = [];
  const ids = timerIds(home, agent);
  for (const id of ids) {
    const file = timerFile(home, agent, id);
    const k = statKey(file);
    if (k === null) continue;
    let entry = cache.entries[id];
    if (!entry || entry.k !== k) {
      dirty = true;
      try {
        entry = { k, t: readTimerFile(file, id) };
      } catch (err) {
        const d = (err as { details?: RecordProblem }).details;
        entry = { k, p: d ?? { file, line: 1, message: (err as Error).message, fix: TIMER_EXAMPLE } };
      }
    }
    next[id] = entry;
    if (entry.t) timers.push(entry.t);
    else if (entry.p) problems.push(entry.p);
  }
  if (dirty || Object.keys(cache.entries).length !== ids.length) {
    try {
      mkdirSync(dirname(cachePath), { recursive: true });
      writeFileAtomic(cachePath, JSON.stringify({ version: TIMER_CACHE_VERSION, entries: next }), join(home.local, 'tmp'));
    } catch {
      // read-only home: parse every time
    }
  }
  return { timers, problems };
}

export async function createTimer(home: Home, t: Timer): Promise<void> {
  mkdirSync(timersDir(home, t.agent), { recursive: true });
  await withLock(home.local, `${t.agent}.${t.id}`, () => {
    const file = timerFile(home, t.agent, t.id);
    if (existsSync(file)) throw invalid(`timer ${t.id} already exists`, 'retry: a new id is drawn each time');
    writeFileAtomic(file, serializeTimer(t), join(home.local, 'tmp'));
  });
}

/** Lock, re-read, apply, write when changed (revision bumped). `fn` sees the current state. */
export async function mutateTimer<R>(home: Home, agent: string, id: string, fn: (t: Timer) => { next: Timer | null; result: R } | Promise<{ next: Timer | null; result: R }>, opts: { lockRetries?: number } = {}): Promise<R> {
  return withLock(home.local, `${agent}.${id}`, async () => {
    const file = timerFile(home, agent, id);
    const cur = readTimerFile(file, id);
    const { next, result } = await fn(cur);
    if (next && serializeTimer(next) !== serializeTimer(cur)) {
      writeFileAtomic(file, serializeTimer({ ...next, revision: cur.revision + 1 }), join(home.local, 'tmp'));
    }
    return result;
  }, { retries: opts.lockRetries });
}

/** Finds a timer by id or unique prefix among the agents (the given agent first). */
export function locateTimer(home: Home, wanted: string, agent?: string): { agent: string; id: string } {
  assertSafeId(wanted, 'timer id');
  const agents = listAgents(home);
  const order = agent ? [agent, ...agents.filter((a) => a !== agent)] : agents;
  const all: string[] = [];
  const hits: Array<{ agent: string; id: string }> = [];
  for (const a of order) {
    if (existsSync(join(timersDir(home, a), `${wanted}.yaml`))) return { agent: a, id: wanted };
    for (const id of timerIds(home, a)) {
      all.push(id);
      if (id.startsWith(wanted)) hits.push({ agent: a, id });
    }
  }
  if (hits.length === 1) return hits[0];
  if (hits.length > 1) throw invalid(`"${wanted}" matches ${hits.length} timers`, 'type more of the id');
  const near = closeMatches(wanted, all);
  throw notFound(`no timer "${wanted}"`, near.length ? `did you mean ${near.join(', ')}?` : 'see `holon timer list --all`');
}
