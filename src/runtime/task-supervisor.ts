/**
 * The detached supervisor of one `holon task run`: runs the command with its output in the task's
 * log, then writes the result record atomically and queues the result event. Started as
 * `node task-supervisor.js HOME_DIR HANDLE`; it outlives the terminal that started the task.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { iso } from '../core/time.js';
import { readConfig, type Home } from '../store/home.js';
import { mutateTask, readTask } from '../store/tasks.js';
import { enqueueTaskEvent, readTail } from './tasks.js';

async function supervise(homeDir: string, id: string): Promise<void> {
  const home: Home = { dir: homeDir, root: dirname(homeDir), local: join(homeDir, 'local'), config: readConfig(homeDir) };
  const t = readTask(home, id);
  const fd = openSync(t.log, 'a');
  const result = await new Promise<{ code: number | null; signal: string | null; error?: string }>((resolve) => {
    const child = spawn(t.command[0], t.command.slice(1), { cwd: t.cwd, stdio: ['ignore', fd, fd], env: { ...process.env, HOLON_TASK: id } });
    child.on('error', (err) => resolve({ code: 127, signal: null, error: err.message }));
    child.on('exit', (code, signal) => resolve({ code, signal }));
    void mutateTask(home, id, (cur) => ({ next: { ...cur, supervisor_pid: process.pid, pid: child.pid ?? null }, result: null })).catch(() => undefined);
  });
  closeSync(fd);
  await mutateTask(home, id, (cur) => {
    const next = {
      ...cur,
      supervisor_pid: process.pid,
      status: 'finished' as const,
      ended_at: iso(Date.now()),
      exit_code: result.code,
      signal: result.signal,
      output_tail: (result.error ? `holon: could not start ${cur.command[0]}: ${result.error}\n` : '') + readTail(cur.log),
    };
    // Under the task's lock, as the tick queues it: a tick reporting this task at the same moment
    // then sees the event, and the result is never queued twice.
    enqueueTaskEvent(home, next, Date.now());
    return { next, result: next };
  });
}

const [homeDir, id] = process.argv.slice(2);
supervise(homeDir, id).catch(() => process.exit(1));
