import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from './random.js';
import { notFound, invalid } from '../core/errors.js';
import { assertSafeId, closeMatches, formatId } from '../core/ids.js';
import { writeFileAtomic } from './atomic-write.js';
import type { Home } from './home.js';
import { withLock } from './lock.js';

/**
 * A background command started by `holon task run`. Task records are process state of this machine
 * (pids, a log file), so they live in local/tasks/ (gitignored); the durable fact, its result, becomes
 * a committed event (source `task`) in the agent's events/ when it ends.
 */
export interface TaskRecord {
  id: string;
  agent: string;
  work_item: string | null;
  command: string[];
  cwd: string;
  status: 'running' | 'finished' | 'lost';
  started_at: string;
  ended_at: string | null;
  exit_code: number | null;
  signal: string | null;
  /** The last OUTPUT_TAIL_BYTES of stdout+stderr. */
  output_tail: string | null;
  log: string;
  supervisor_pid: number | null;
  pid: number | null;
  /** The event that carries the result (deterministic per handle). */
  event: string | null;
  /** When a tick reported the finished task (it is listed in one tick report only). */
  reported_at: string | null;
}

export const OUTPUT_TAIL_BYTES = 4096;

export const tasksDir = (home: Home) => join(home.local, 'tasks');
export const taskFile = (home: Home, id: string) => join(tasksDir(home), `${assertSafeId(id, 'task handle')}.json`);
export const taskLog = (home: Home, id: string) => join(tasksDir(home), `${assertSafeId(id, 'task handle')}.log`);
export const newTaskId = () => formatId('k', randomBytes(8));

export function readTask(home: Home, id: string): TaskRecord {
  try {
    return JSON.parse(readFileSync(taskFile(home, id), 'utf8')) as TaskRecord;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`no task "${id}" on this machine`, 'see `holon task list` (task records are machine-local, under .holon/local/tasks)');
    throw invalid(`task record ${taskFile(home, id)} is unreadable: ${(err as Error).message}`, 'it is machine-local state; delete it if the task is long gone');
  }
}

export function writeTask(home: Home, t: TaskRecord): void {
  mkdirSync(tasksDir(home), { recursive: true });
  writeFileAtomic(taskFile(home, t.id), JSON.stringify(t, null, 2) + '\n', join(home.local, 'tmp'));
}

export async function mutateTask<R>(home: Home, id: string, fn: (t: TaskRecord) => { next: TaskRecord | null; result: R }): Promise<R> {
  return withLock(home.local, `task.${id}`, () => {
    const { next, result } = fn(readTask(home, id));
    if (next) writeTask(home, next);
    return result;
  });
}

export function taskIds(home: Home): string[] {
  try {
    return readdirSync(tasksDir(home)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  } catch {
    return [];
  }
}

export function listTasks(home: Home): TaskRecord[] {
  const out: TaskRecord[] = [];
  for (const id of taskIds(home)) {
    try {
      out.push(readTask(home, id));
    } catch {
      // skipped: a torn record cannot happen (atomic writes); a hand-edited one is the user's
    }
  }
  return out.sort((a, b) => a.started_at.localeCompare(b.started_at) || a.id.localeCompare(b.id));
}

export function locateTask(home: Home, wanted: string): string {
  assertSafeId(wanted, 'task handle');
  const ids = taskIds(home);
  if (ids.includes(wanted)) return wanted;
  const hits = ids.filter((i) => i.startsWith(wanted));
  if (hits.length === 1) return hits[0];
  if (hits.length > 1) throw invalid(`"${wanted}" matches ${hits.length} tasks`, 'type more of the handle');
  const near = closeMatches(wanted, ids);
  throw notFound(`no task "${wanted}" on this machine`, near.length ? `did you mean ${near.join(', ')}?` : 'see `holon task list`');
}
