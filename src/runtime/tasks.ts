import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { invalid } from '../core/errors.js';
import { fileURLToPath } from 'node:url';
import { iso } from '../core/time.js';
import { enqueueEvent } from '../store/events.js';
import { eventExists, occurrenceEventId } from '../store/event-store.js';
import type { Home } from '../store/home.js';
import type { HolonEvent } from '../core/types.js';
import { skipBusy } from './skip-busy.js';
import { listTasks, mutateTask, newTaskId, OUTPUT_TAIL_BYTES, taskFile, taskLog, writeTask, type TaskRecord } from '../store/tasks.js';
import { pidAlive } from '../store/watcher-lock.js';

const statMtime = (file: string) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

// A separate process running tsc's dist/runtime/ file: the path holds from dist/runtime/ and from dist/bundle/.
const SUPERVISOR = fileURLToPath(new URL('../runtime/task-supervisor.js', import.meta.url));

/** The event id that carries a task's result: one per handle, so reporting twice writes it once. */
export const taskEventId = (id: string) => occurrenceEventId(`task:${id}`);

/**
 * Starts `argv` in the background under a detached supervisor (its own session: it survives the
 * terminal) and returns the handle once it runs. The supervisor records the result when the command ends.
 * A supervisor that cannot start (e.g. the working directory is gone) leaves no record: an error, not a crash.
 */
export async function startTask(home: Home, agent: string, workItem: string | null, argv: string[], cwd: string, nowMs: number): Promise<TaskRecord> {
  const id = newTaskId();
  const t: TaskRecord = {
    id, agent, work_item: workItem, command: argv, cwd, status: 'running', started_at: iso(nowMs), ended_at: null,
    exit_code: null, signal: null, output_tail: null, log: taskLog(home, id), supervisor_pid: null, pid: null,
    event: taskEventId(id), reported_at: null,
  };
  writeTask(home, t);
  const child = spawn(process.execPath, [SUPERVISOR, home.dir, id], { detached: true, stdio: 'ignore', cwd, env: process.env });
  const failure = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', resolve);
  });
  if (failure) {
    rmSync(taskFile(home, id), { force: true });
    throw invalid(`could not start the task in ${cwd}: ${failure.message}`, 'run it from an existing directory you can read');
  }
  child.unref();
  return t;
}

/** The last bytes of a log file as text. */
export function readTail(file: string, bytes = OUTPUT_TAIL_BYTES): string {
  let fd: number | undefined;
  try {
    const size = statSync(file).size;
    const len = Math.min(size, bytes);
    const buf = Buffer.alloc(len);
    fd = openSync(file, 'r');
    readSync(fd, buf, 0, len, size - len);
    return buf.toString('utf8').replace(/^\uFFFD+/, '');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Command output as plain text: terminal escape sequences dropped, carriage returns as new lines, other
 * control characters replaced. It is untrusted data that resume prints, to a terminal or a model.
 */
function plainText(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b(\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(\u0007|\u001b\\)?|[@-_])/g, '')
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '\uFFFD');
}

/** The payload of a task's result event: exit status, command, output tail (untrusted data). */
export function taskPayload(t: TaskRecord): string {
  const status = t.status === 'lost' ? 'lost (its supervisor is gone; the result is unknown)' : t.signal ? `killed by ${t.signal}` : `exit code ${t.exit_code}`;
  return plainText(`${status}\ncommand: ${t.command.join(' ')}\n--- output tail ---\n${t.output_tail ?? ''}`);
}

/** Queues the result event of a finished task unless it exists already (queued or admitted). */
export function enqueueTaskEvent(home: Home, t: TaskRecord, nowMs: number): boolean {
  const id = taskEventId(t.id);
  if (eventExists(home, t.agent, id)) return false;
  enqueueEvent(home, t.agent, { id, source: 'task', mode: 'message', resource: `task:${t.id}`, work_item: null, payload: taskPayload(t), provenance: `task:${t.id}` }, nowMs);
  return true;
}

const alive = (pid: number | null | undefined): boolean => pid != null && pidAlive(pid);

/** How long a task may stay without a supervisor pid before it counts as lost. */
const SUPERVISOR_GRACE_MS = 30_000;

type Finished = { task: string; agent: string; exit_code: number | null };

/**
 * The tick's task phase: every finished task not yet reported gets its event queued (the supervisor
 * usually queued it already) and is reported once. A running task whose supervisor died is `lost`.
 */
export async function reportFinishedTasks(home: Home, nowMs: number, agents: string[] | null): Promise<Finished[]> {
  const out: Finished[] = [];
  for (const t of listTasks(home)) {
    if (agents && !agents.includes(t.agent)) continue;
    if (t.reported_at) continue;
    if (t.status === 'running') {
      // Real time, not the command's clock: HOLON_NOW must not make a just-started task look lost.
      const gone = t.supervisor_pid ? !alive(t.supervisor_pid) : Date.now() - statMtime(taskFile(home, t.id)) > SUPERVISOR_GRACE_MS;
      if (!gone) continue;
    }
    const reported = await reportTask(home, t.id, nowMs);
    if (reported) out.push(reported);
  }
  return out;
}

/**
 * Reports the tasks whose result events this pass admitted though the task phase saw them running: the
 * supervisor queues the event under the task's lock before it writes the result, so a pass can admit
 * the event of a task it found running moments before. Waiting for that lock here reports the task in
 * the same pass as the wake it causes, never one pass later.
 */
export async function reportTasksOfEvents(home: Home, events: HolonEvent[], nowMs: number, reported: Finished[]): Promise<Finished[]> {
  const out: Finished[] = [];
  for (const ev of events) {
    if (ev.source !== 'task' || !ev.resource.startsWith('task:')) continue;
    const id = ev.resource.slice('task:'.length);
    // One result event per task (taskEventId): only a task the task phase reported already is skipped.
    if (reported.some((r) => r.task === id)) continue;
    const r = await reportTask(home, id, nowMs); // an unknown or unsafe handle: null, skipped
    if (r) out.push(r);
  }
  return out;
}

/** Reports one task under its lock: queues its event if missing and marks it reported, once. */
async function reportTask(home: Home, id: string, nowMs: number): Promise<Finished | null> {
  const reported = await skipBusy(() => mutateTask(home, id, (cur) => {
    if (cur.reported_at) return { next: null, result: null };
    if (cur.status === 'running' && cur.supervisor_pid && alive(cur.supervisor_pid)) return { next: null, result: null };
    const done: TaskRecord = cur.status === 'running' ? { ...cur, status: 'lost', ended_at: iso(nowMs), output_tail: readTail(cur.log) } : cur;
    enqueueTaskEvent(home, done, nowMs);
    return { next: { ...done, reported_at: iso(nowMs) }, result: done as TaskRecord | null };
  }));
  return reported && { task: reported.id, agent: reported.agent, exit_code: reported.exit_code };
}
