import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { iso } from '../core/time.js';
import { writeFileAtomic } from './atomic-write.js';
import type { Home } from './home.js';
import { withLock } from './lock.js';
import { loadAgentWork } from './work-index.js';
import { recentEvents } from './event-store.js';

/**
 * Which agents are stopped on this machine (local/agent-state.json): the watcher starts no run for a
 * stopped agent. Machine-local on purpose: stopping an agent here does not stop it on a colleague's.
 */
export interface AgentState {
  stopped: Record<string, { since: string; by: string }>;
  /**
   * When each agent was last started again: wakes that arrived before it are not continued. Times are
   * whole seconds, so `settled_before` names the waits settled and the events admitted in the second
   * of the start, before it (read at the start): those are stale too, and one later in that second is
   * not (runtime/watch-reasons.ts, beforeStart).
   */
  started: Record<string, { since: string; by: string; settled_before?: string[] }>;
}

const stateFile = (home: Home) => join(home.local, 'agent-state.json');

export function readAgentState(home: Home): AgentState {
  try {
    const s = JSON.parse(readFileSync(stateFile(home), 'utf8')) as Partial<AgentState>;
    return { stopped: s.stopped ?? {}, started: s.started ?? {} };
  } catch {
    return { stopped: {}, started: {} };
  }
}

export const isStopped = (home: Home, agent: string) => Boolean(readAgentState(home).stopped[agent]);

/** Marks an agent stopped or started; returns whether anything changed. */
export async function setStopped(home: Home, agent: string, stopped: boolean, by: string, nowMs: number): Promise<boolean> {
  return withLock(home.local, 'agent-state', () => {
    const s = readAgentState(home);
    if (Boolean(s.stopped[agent]) === stopped) return false;
    if (stopped) s.stopped[agent] = { since: iso(nowMs), by };
    else {
      delete s.stopped[agent];
      const since = iso(nowMs);
      const settled: string[] = [];
      for (const i of loadAgentWork(home, agent).items) for (const w of i.waits) if (w.settled_at === since) settled.push(w.id);
      for (const e of recentEvents(home, agent, nowMs)) if (e.status === 'admitted' && e.admitted_at === since) settled.push(e.id);
      s.started[agent] = { since, by, ...(settled.length ? { settled_before: settled } : {}) };
    }
    writeFileAtomic(stateFile(home), JSON.stringify(s, null, 2) + '\n', join(home.local, 'tmp'));
    return true;
  });
}
