import { inboxFile, occurrenceEventId, readAdmitted, readEventFile } from './event-store.js';
import type { Home } from './home.js';
import { taskIds } from './tasks.js';

/**
 * A task's result as another clone sees it. Task records (pid, log) stay on the machine that ran the
 * task; its result travels as the committed result event (queued or admitted), whose id is derived from
 * the handle. This reads that event for a handle this machine has no record of.
 */
export interface TravelledResult {
  task: string;
  status: 'finished' | 'lost';
  exit_code: number | null;
  signal: string | null;
  ended_at: string;
  output_tail: string | null;
  event: string;
}

export function travelledTaskResult(home: Home, agent: string, handle: string): TravelledResult | null {
  if (!/^k-[a-z0-9]{6,}$/.test(handle) || taskIds(home).some((i) => i.startsWith(handle))) return null;
  const id = occurrenceEventId(`task:${handle}`);
  let ev = readAdmitted(home, agent, id);
  if (!ev) {
    try {
      ev = readEventFile(inboxFile(home, agent, id));
    } catch {
      return null;
    }
  }
  if (ev.resource !== `task:${handle}` || ev.source !== 'task') return null;
  const payload = ev.payload ?? '';
  const first = payload.split('\n')[0];
  const tail = payload.split('\n--- output tail ---\n')[1];
  return {
    task: handle,
    status: first.startsWith('lost') ? 'lost' : 'finished',
    exit_code: /^exit code (-?\d+)/.exec(first) ? Number(/^exit code (-?\d+)/.exec(first)![1]) : null,
    signal: /^killed by (\S+)/.exec(first)?.[1] ?? null,
    ended_at: ev.created_at,
    output_tail: tail ?? null,
    event: ev.id,
  };
}
