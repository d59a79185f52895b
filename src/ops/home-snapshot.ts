import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { computeFrontier, type Frontier } from '../core/frontier.js';
import type { RunRecord } from '../core/run-record.js';
import type { Timer } from '../core/schedule.js';
import { eventOrder, type HolonEvent, type WorkItem } from '../core/types.js';
import { isLive } from '../core/wait-matching.js';
import { readAgentState } from '../store/agent-state.js';
import { listAdmitted, listInbox } from '../store/event-store.js';
import { readFocus } from '../store/focus.js';
import { buildFrontierInput } from '../store/frontier-input.js';
import { loadGraph } from '../store/graph-index.js';
import { listAgents, type Home } from '../store/home.js';
import { runLogFile, listRuns } from '../store/runs.js';
import { listTimers } from '../store/timers.js';
import { readWorkFile, workFile } from '../store/work-store.js';
import { liveWatcher, pidAlive, type WatcherInfo } from '../store/watcher-lock.js';

/** One agent as the dashboard reads it: plain records, nothing computed for display yet. */
export interface AgentSnapshot {
  name: string;
  focus: string | null;
  stopped: boolean;
  items: WorkItem[];
  frontier: Frontier;
  timers: Timer[];
  /** Queued and admitted events, oldest first (the last `eventLimit`). */
  events: HolonEvent[];
  runs: RunRecord[];
}

/** Everything `holon dash` shows, read from the home in one pass. */
export interface HomeSnapshot {
  home: string;
  read_at_ms: number;
  watcher: WatcherInfo | null;
  agents: AgentSnapshot[];
  /** Run ids whose runner is still going (status running and its watcher alive). */
  live_runs: string[];
  /** The tail of each live run's log (and of the last run per agent), by run id. */
  log_tails: Record<string, string>;
  problems: number;
}

const TAIL_BYTES = 8 * 1024;

/** The last `bytes` of a file (decoded as UTF-8; a cut first character is dropped), or '' when absent. */
export function readTail(file: string, bytes = TAIL_BYTES): string {
  let fd: number | undefined;
  try {
    const size = statSync(file).size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    fd = openSync(file, 'r');
    readSync(fd, buf, 0, buf.length, start);
    const text = buf.toString('utf8');
    return start > 0 ? text.replace(/^[^\n]*\n?/, '') : text;
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The whole text of a record file, for the dashboard's record pane. */
export function readRecordText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return `(cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
}

/** The graph index keeps only what the frontier reads of a wait; the dashboard shows its reason and waker. */
function withFullWaits(home: Home, item: WorkItem): WorkItem {
  try {
    return { ...item, waits: readWorkFile(workFile(home, item.agent, item.id), item.id).item.waits.filter(isLive) };
  } catch {
    return item;
  }
}

/**
 * Reads what the dashboard shows: per agent its focus, items, frontier, timers, events and runs; the
 * watcher; the log tails of live runs. Reads only (the caches under local/ aside).
 */
export async function readHomeSnapshot(home: Home, opts: { nowMs: number; cwd: string; agents?: string[]; eventLimit?: number }): Promise<HomeSnapshot> {
  const names = opts.agents ?? listAgents(home);
  const graph = await loadGraph(home);
  const state = readAgentState(home);
  const watcher = liveWatcher(home);
  const live: string[] = [];
  const tails: Record<string, string> = {};
  const agents: AgentSnapshot[] = names.map((name) => {
    const { input } = buildFrontierInput(home, name, { holder: `agent:${name}`, nowMs: opts.nowMs, cwd: opts.cwd }, graph);
    const runs = listRuns(home, { agent: name });
    for (const r of runs) if (r.status === 'running' && r.ended_at === null && pidAlive(r.watcher_pid)) live.push(r.id);
    const last = runs[runs.length - 1];
    if (last) tails[last.id] = readTail(runLogFile(home, last.id));
    const events = [...listAdmitted(home, name), ...listInbox(home, name)]
      .sort(eventOrder)
      .slice(-(opts.eventLimit ?? 20));
    return {
      name,
      focus: readFocus(home, name).work_item,
      stopped: Boolean(state.stopped[name]),
      items: graph.items.filter((i) => i.agent === name).map((i) => (i.waits.length ? withFullWaits(home, i) : i)),
      frontier: computeFrontier(input),
      timers: listTimers(home, name).timers,
      events,
      runs,
    };
  });
  for (const id of live) if (!(id in tails)) tails[id] = readTail(runLogFile(home, id));
  return { home: home.dir, read_at_ms: opts.nowMs, watcher, agents, live_runs: live, log_tails: tails, problems: graph.problems.length };
}
