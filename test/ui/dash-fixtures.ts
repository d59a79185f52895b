import { computeFrontier } from '../../src/core/frontier.js';
import type { RunRecord } from '../../src/core/run-record.js';
import type { Timer } from '../../src/core/schedule.js';
import type { HolonEvent, WorkItem } from '../../src/core/types.js';
import type { AgentSnapshot, HomeSnapshot } from '../../src/ops/home-snapshot.js';
import { input, mk, NOW } from '../core/frontier-fixtures.js';

export { mk, NOW, wait } from '../core/frontier-fixtures.js';

/** An agent as the snapshot reader returns it, its frontier computed by the real evaluator. */
export function agent(name: string, items: WorkItem[], over: Partial<AgentSnapshot> = {}): AgentSnapshot {
  const own = items.map((i) => ({ ...i, agent: name }));
  return {
    name, focus: null, stopped: false, items: own, timers: [], events: [], runs: [],
    frontier: computeFrontier(input(own, { agent: name, holder: `agent:${name}` })),
    ...over,
  };
}

export function snapshot(agents: AgentSnapshot[], over: Partial<HomeSnapshot> = {}): HomeSnapshot {
  return { home: '/h/.holon', read_at_ms: NOW, watcher: null, agents, live_runs: [], log_tails: {}, problems: 0, ...over };
}

export function run(over: Partial<RunRecord> & { id: string }): RunRecord {
  return {
    agent: 'main', work_item: 'w-a', reason: 'wait_triggered', reasons: ['wait_triggered'], wakes: [], runner: 'command', watcher_pid: 1, pid: null,
    started_at: '2026-11-30T05:59:00Z', ended_at: null, duration_ms: null, status: 'running', exit_code: null, signal: null, error: null,
    session_id: null, resumed_session: null, tokens: null, cost_usd: null, revision_before: null, revision_after: null, progress: null,
    blocked: false, resumed_by: null, ...over,
  };
}

export function timer(over: Partial<Timer> & { id: string }): Timer {
  return {
    agent: 'main', work_item: null, summary: null, status: 'active', created_at: '2026-11-30T05:00:00Z', first_due_at: '2026-11-30T07:00:00Z',
    every: null, until: null, next_due_at: '2026-11-30T07:00:00Z', last_fired_at: null, last_slot_at: null, fire_count: 0, missed_count: 0,
    cancelled_at: null, revision: 1, ...over,
  };
}

export function event(over: Partial<HolonEvent> & { id: string }): HolonEvent {
  return {
    agent: 'main', source: 'external', mode: 'wake_hint', resource: 'external:ci:run/7', work_item: null, payload: null, provenance: 'cli:notify by operator',
    created_at: '2026-11-30T05:30:00Z', status: 'admitted', admitted_at: '2026-11-30T05:30:00Z', disposition: { triggered: [], nudged: true }, ...over,
  };
}

export const gate = (id: string, scope = 'api_change:project:x') => mk({ id, class: 'user_gate', decision_scope: { scope } });
export { mk as item };
