import type { CapabilityState, FrontierInput, Workspace } from '../../src/core/frontier.js';
import type { Ancestry } from '../../src/core/frontier-freshness.js';
import type { Wait, WorkItem } from '../../src/core/types.js';

export const NOW = Date.parse('2026-11-30T06:00:00Z');

let n = 0;
/** An open advancement_task of agent "main" with every field at its default. */
export function mk(over: Partial<WorkItem> & { id: string }): WorkItem {
  n++;
  return {
    title: over.id, agent: 'main', status: 'open', class: 'advancement_task', action: null, role: null, priority: null,
    created_at: `2026-11-01T00:00:${String(n % 60).padStart(2, '0')}Z`, updated_at: '', revision: 1, depends_on: [], resume_when: [],
    requires: [], repo: null, branch: null, write_scope: [], workspace: null, freshness: null, needs_decision: [], decision_scope: null, exclude: [], claim: null,
    waits: [], blocker: null, successors: [], superseded_by: null, no_followup: null, delivery: null, extra: {},
    ...over,
  };
}

export function wait(status: Wait['status'], over: Partial<Wait> = {}): Wait {
  return { id: 'wt-1', kind: 'external', resource: 'ci:run/7', reason: 'CI', status, created_at: '2026-11-30T05:00:00Z', recheck_at: '2026-11-30T09:00:00Z', settled_at: null, settled_reason: null, ...over };
}

export const caps = (entries: Record<string, Partial<CapabilityState>>) =>
  new Map(Object.entries(entries).map(([k, v]) => [k, { available: true, status: 'declared' as const, detail: 'declared', ...v }]));

/** The checkout's history in the fixtures: c1 <- c2 <- HEAD c3 on main; x9 on another line; anything else unknown. */
export const HEAD = 'c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3';
const HISTORY: Record<string, Ancestry> = { c1c1c1c1: 'ancestor', c2c2c2c2: 'ancestor', x9x9x9x9: 'other' };

export function input(items: WorkItem[], over: Partial<FrontierInput> & { ws?: Partial<Workspace>; events?: string[] } = {}): FrontierInput {
  const ws: Workspace = { git: true, repo_ids: ['acme/app', 'app'], repo: 'acme/app', branch: 'main', worktree: false, common: '/src/app/.git', ...over.ws };
  return {
    agent: 'main', holder: 'agent:main', nowMs: NOW, items, capabilities: caps({ shell: {} }),
    workspace: () => ws, admittedEvents: () => new Map((over.events ?? []).map((r) => [r, Infinity])),
    head: () => HEAD, ancestry: (c) => (HEAD.startsWith(c) ? 'same' : HISTORY[c] ?? 'unknown'),
    ...over,
  };
}
