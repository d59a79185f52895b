import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from './random.js';
import { notFound, invalid } from '../core/errors.js';
import { assertSafeId, closeMatches, formatId } from '../core/ids.js';
import { runOrder, type RunRecord } from '../core/run-record.js';
import type { SessionTotals } from '../core/runner-output.js';
import { iso } from '../core/time.js';
import { writeFileAtomic } from './atomic-write.js';
import type { Home } from './home.js';
import { withLock } from './lock.js';

/**
 * Run records live in local/runs/<id>.json (machine-local process state, like the run logs beside
 * them as <id>.log); the agent+item -> session id map in local/runs/sessions.json. The durable trace
 * of each run is the one-line History entry on its WorkItem, which is committed.
 */
export const runsDir = (home: Home) => join(home.local, 'runs');
export const runLogFile = (home: Home, id: string) => join(runsDir(home), `${id}.log`);

export const newRunId = () => formatId('r', randomBytes(8));

export function writeRun(home: Home, run: RunRecord): void {
  mkdirSync(runsDir(home), { recursive: true });
  writeFileAtomic(join(runsDir(home), `${run.id}.json`), JSON.stringify(run, null, 2) + '\n', join(home.local, 'tmp'));
}

export function readRun(home: Home, id: string): RunRecord | null {
  try {
    return JSON.parse(readFileSync(join(runsDir(home), `${id}.json`), 'utf8')) as RunRecord;
  } catch {
    return null;
  }
}

/** The last `maxBytes` of a run's log (stdout and stderr), or null when it has none. */
export function readLogTail(home: Home, id: string, maxBytes = 8192): { text: string; size: number; truncated: boolean } | null {
  let fd: number;
  try {
    fd = openSync(runLogFile(home, id), 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, maxBytes);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    let text = buf.toString('utf8');
    // Start at a line boundary when the tail cut one.
    if (len < size && text.includes('\n')) text = text.slice(text.indexOf('\n') + 1);
    return { text, size, truncated: len < size };
  } finally {
    closeSync(fd);
  }
}

/** The last non-empty line of a run's log (for the cause of a bare non-zero exit), trimmed. */
export function lastLogLine(home: Home, id: string): string | null {
  const lines = (readLogTail(home, id, 2048)?.text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.length ? lines[lines.length - 1].slice(0, 200) : null;
}

/** A run by id or unique id prefix; not found (with close ids) or ambiguous is an error. */
export function findRun(home: Home, wanted: string): RunRecord {
  assertSafeId(wanted, 'run id');
  const exact = /^r-[0-9a-z]+$/.test(wanted) ? readRun(home, wanted) : null;
  if (exact) return exact;
  const all = listRuns(home);
  const matches = all.filter((r) => r.id.startsWith(wanted) || r.id.startsWith(`r-${wanted}`));
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) throw invalid(`"${wanted}" matches ${matches.length} runs: ${matches.slice(0, 5).map((r) => r.id).join(', ')}${matches.length > 5 ? ', ...' : ''}`, 'type more of the id');
  const near = closeMatches(wanted, all.map((r) => r.id));
  throw notFound(`no run "${wanted}"`, near.length ? `did you mean ${near.join(', ')}?` : all.length ? 'see `holon runs` for the ids' : 'no runs yet (holon watch starts them)');
}

/** Parsed run records by file, keyed by size and mtime: a long-lived watcher re-reads only what changed. */
const cache = new Map<string, { key: string; run: RunRecord }>();

/** All run records (optionally of one agent / one item), oldest first. Unreadable files are skipped. */
export function listRuns(home: Home, filter: { agent?: string; work?: string } = {}): RunRecord[] {
  let names: string[];
  try {
    names = readdirSync(runsDir(home)).filter((f) => f.startsWith('r-') && f.endsWith('.json'));
  } catch {
    return [];
  }
  const runs: RunRecord[] = [];
  for (const n of names) {
    const file = join(runsDir(home), n);
    let r: RunRecord;
    try {
      const st = statSync(file);
      const key = `${st.size}:${st.mtimeMs}:${st.ino}`;
      const hit = cache.get(file);
      if (hit && hit.key === key) r = hit.run;
      else {
        r = JSON.parse(readFileSync(file, 'utf8')) as RunRecord;
        cache.set(file, { key, run: r });
      }
    } catch {
      continue;
    }
    if (filter.agent && r.agent !== filter.agent) continue;
    if (filter.work && r.work_item !== filter.work && !r.work_item.startsWith(filter.work)) continue;
    runs.push({ ...r });
  }
  return runs.sort(runOrder);
}

/** The waits an agent's successful runs consumed (named by their wakes). */
export function consumedWaits(home: Home, agent: string): Set<string> {
  const out = new Set<string>();
  for (const r of listRuns(home, { agent })) if (r.status === 'ok') for (const w of r.wakes) if (w.wait) out.add(w.wait);
  return out;
}

export interface SessionEntry {
  runner: string;
  session_id: string;
  updated_at: string;
  run: string;
  /** The running totals the runner printed at the end of that run, to take this run's share from the next totals. */
  totals?: SessionTotals;
}

const sessionsFile = (home: Home) => join(runsDir(home), 'sessions.json');
const sessionKey = (agent: string, item: string) => `${agent}/${item}`;

function readSessions(home: Home): Record<string, SessionEntry> {
  try {
    return JSON.parse(readFileSync(sessionsFile(home), 'utf8')) as Record<string, SessionEntry>;
  } catch {
    return {};
  }
}

/** The session (Claude) or thread (Codex) id the runner reported last time for this agent+item. */
export function lastSession(home: Home, agent: string, item: string, runner: string): string | null {
  const e = readSessions(home)[sessionKey(agent, item)];
  return e && e.runner === runner ? e.session_id : null;
}

/** The totals remembered with the session `sessionId` of agent+item; null for another or an unknown session. */
export function lastSessionTotals(home: Home, agent: string, item: string, runner: string, sessionId: string | null): SessionTotals | null {
  const e = readSessions(home)[sessionKey(agent, item)];
  return sessionId && e && e.runner === runner && e.session_id === sessionId ? (e.totals ?? null) : null;
}

/** Forgets the session of agent+item (it could not be resumed), so the next run starts a new one. */
export async function forgetSession(home: Home, agent: string, item: string): Promise<void> {
  await withLock(home.local, 'runs.sessions', () => {
    const all = readSessions(home);
    if (!all[sessionKey(agent, item)]) return;
    delete all[sessionKey(agent, item)];
    writeFileAtomic(sessionsFile(home), JSON.stringify(all, null, 2) + '\n', join(home.local, 'tmp'));
  });
}

export async function rememberSession(home: Home, agent: string, item: string, runner: string, sessionId: string, run: string, nowMs: number, totals?: SessionTotals): Promise<void> {
  mkdirSync(runsDir(home), { recursive: true });
  await withLock(home.local, 'runs.sessions', () => {
    const all = readSessions(home);
    all[sessionKey(agent, item)] = { runner, session_id: sessionId, updated_at: iso(nowMs), run, ...(totals ? { totals } : {}) };
    writeFileAtomic(sessionsFile(home), JSON.stringify(all, null, 2) + '\n', join(home.local, 'tmp'));
  });
}
