import { evaluate, prepare, sortVerdicts, type Verdict } from '../core/frontier.js';
import { readAgentState, type AgentState } from '../store/agent-state.js';
import type { RunRecord } from '../core/run-record.js';
import { iso } from '../core/time.js';
import type { WorkSummary } from '../core/workitem.js';
import type { Home } from '../store/home.js';
import { listRuns, readRun, writeRun } from '../store/runs.js';
import { pidAlive } from '../store/watcher-lock.js';
import { loadFrontierInput } from '../store/frontier-input.js';
import { loadAgentWork } from '../store/work-index.js';
import { newOperatorNudges } from '../store/operator-events.js';
import type { Wake } from './tick.js';
import { retryPlan, type RetryPlan, type RetrySettings } from '../core/run-retry.js';
import { isLive } from '../core/wait-matching.js';
import { firedTimerWakes } from './timer-wakes.js';

const live = (i: WorkSummary) => i.waits.some(isLive);

/**
 * New work assigned while the agent is idle: an open advancement task nobody has run yet, with no
 * live wait and no blocker, that is runnable in the agent's frontier (dependencies, gates, claims,
 * exclusions, capabilities and workspace all pass, as for `holon pick`). Open items that wait, are
 * gated, or were run before, are never a reason on their own.
 */
export async function newWorkWakes(home: Home, agents: string[], known: (agent: string, id: string) => boolean, held: (agent: string, id: string, why: string) => void = () => undefined, nowMs = Date.now()): Promise<Wake[]> {
  const wakes: Wake[] = [];
  for (const agent of agents) {
    const candidates = loadAgentWork(home, agent).items.filter((i) => i.status === 'open' && i.class === 'advancement_task' && !i.blocker && !live(i) && !known(agent, i.id));
    if (!candidates.length) continue;
    // The runner runs in the home's root: that checkout is the workspace the guard checks.
    const { input } = await loadFrontierInput(home, agent, { holder: `agent:${agent}`, nowMs, cwd: home.root });
    const p = prepare(input);
    const runnable: Verdict[] = [];
    for (const i of candidates) {
      const item = p.byId.get(i.id);
      if (!item) continue;
      const v = evaluate(p, item);
      if (v.channel === 'runnable') runnable.push(v);
      else held(agent, i.id, `${v.code}: ${v.detail}`);
    }
    // In frontier order (priority, then age), as `holon pick` would take them: files are listed by
    // their random ids, and two items that arrive in one pass must not run in that order.
    for (const v of sortVerdicts(runnable)) wakes.push({ agent, work_item: v.item.id, reason: 'new_work' });
  }
  return wakes;
}

/**
 * What past runs handled: `agent/item` pairs any run was started for, and the waits and events named
 * by the wakes of runs that consumed them. Only a run that ended ok consumes its wakes (a run in
 * flight holds them); a failed or interrupted run leaves them pending, to be run again.
 */
export interface Covered {
  items: Set<string>;
  keys: Set<string>;
}

export function coveredByRuns(home: Home): Covered {
  const c: Covered = { items: new Set(), keys: new Set() };
  for (const r of listRuns(home)) cover(c, r);
  return c;
}

export function cover(c: Covered, r: Pick<RunRecord, 'agent' | 'work_item' | 'wakes' | 'status'>): void {
  c.items.add(`${r.agent}/${r.work_item}`);
  if (r.status !== 'ok' && r.status !== 'running') return;
  for (const w of r.wakes) {
    if (w.wait) c.keys.add(`wait:${w.wait}`);
    if (w.event) c.keys.add(`event:${w.event}`);
  }
}

/** A retry owed to an item (core/run-retry.ts), with its wakes: due now, or held until `dueMs`. */
export interface Retry {
  agent: string;
  work_item: string;
  plan: RetryPlan;
  wakes: Wake[];
}

/**
 * The retries the run records owe: items whose last runs failed, with the wakes those runs did not
 * consume. An item the retries blocked is owed one again once it is open (someone reopened it).
 * Done and deferred items are owed nothing.
 */
export function retries(home: Home, agents: string[], s: RetrySettings): Retry[] {
  const byItem = new Map<string, RunRecord[]>();
  for (const r of listRuns(home)) {
    if (!agents.includes(r.agent)) continue;
    const key = `${r.agent}/${r.work_item}`;
    byItem.set(key, [...(byItem.get(key) ?? []), r]);
  }
  const out: Retry[] = [];
  for (const runs of byItem.values()) {
    const plan = retryPlan(runs, s);
    if (!plan) continue;
    const { agent, work_item } = plan.last;
    const item = loadAgentWork(home, agent).items.find((i) => i.id === work_item);
    if (!item || item.status === 'done' || item.status === 'deferred') continue;
    if (plan.blocked && item.status !== 'open') continue;
    const wakes = plan.wakes.map((w) => ({ agent, work_item, ...w, reason: w.reason as Wake['reason'] }));
    out.push({ agent, work_item, plan, wakes });
  }
  return out;
}

/**
 * Whether what happened `at` (a wait settled, an event admitted: ISO, whole seconds) came before the
 * agent was last started again: then it is not continued (stopping makes old continuations
 * ineligible, SPEC 3). In the second of the start, the start named what it saw already (`id`).
 */
function beforeStart(start: AgentState['started'][string] | undefined, at: string | null | undefined, id: string): boolean {
  if (!start || !at) return false;
  return at < start.since || (at === start.since && (start.settled_before ?? []).includes(id));
}

/**
 * Reasons recorded in the items themselves that no run has handled yet: waits triggered (by this
 * watcher's tick, by a \`holon notify\` that admitted its event at once, or by a tick run elsewhere)
 * and waits whose recheck deadline passed. Read from the records, so a restart finds them again.
 */
export function pendingWakes(home: Home, agents: string[], covered: Covered): Wake[] {
  const wakes: Wake[] = [];
  const started = readAgentState(home).started;
  for (const agent of agents) {
    for (const i of loadAgentWork(home, agent).items) {
      if (i.status === 'done' || i.status === 'deferred') continue;
      for (const w of i.waits) {
        if (covered.keys.has(`wait:${w.id}`)) continue;
        if (beforeStart(started[agent], w.settled_at, w.id)) continue;
        if (w.status === 'triggered' && w.settled_by) {
          const reason = w.settled_by.source === 'operator' ? 'operator_message' : w.kind === 'timer' ? 'timer_fired' : 'wait_triggered';
          wakes.push({ agent, work_item: i.id, reason, wait: w.id, event: w.settled_by.event });
        } else if (w.status === 'expired' && w.settled_reason === 'recheck_deadline') {
          wakes.push({ agent, work_item: i.id, reason: 'recheck_deadline', wait: w.id });
        }
      }
    }
  }
  wakes.push(...firedTimerWakes(home, agents, covered.keys));
  return wakes;
}

/**
 * Runs a dead watcher left behind (no end, watcher pid gone) or a clean shutdown interrupted:
 * each is marked interrupted (its leftover process group killed) and resumed once, one wake per item.
 */
export function recoverInterrupted(home: Home, agents?: string[]): Array<{ wake: Wake; resumes: string[] }> {
  const byItem = new Map<string, { wake: Wake; resumes: string[] }>();
  for (const r of listRuns(home)) {
    if (agents?.length && !agents.includes(r.agent)) continue;
    const orphan = r.status === 'running' && r.ended_at === null && (r.watcher_pid === process.pid || !pidAlive(r.watcher_pid));
    const pending = r.status === 'interrupted' && r.resumed_by === null;
    if (!orphan && !pending) continue;
    if (orphan) {
      if (r.pid) {
        try {
          process.kill(-r.pid, 'SIGKILL');
        } catch {
          // gone with its watcher
        }
      }
      r.status = 'interrupted';
      r.error = `its watcher (pid ${r.watcher_pid}) stopped during the run`;
      writeRun(home, r);
    }
    const key = `${r.agent}/${r.work_item}`;
    const entry = byItem.get(key) ?? { wake: { agent: r.agent, work_item: r.work_item, reason: 'interrupted' as const }, resumes: [] };
    entry.resumes.push(r.id);
    byItem.set(key, entry);
  }
  return [...byItem.values()];
}

/** Records which run resumed interrupted ones, so a later restart does not resume them again. */
export function markResumed(home: Home, runIds: string[], by: string): void {
  for (const id of runIds) {
    const r = readRun(home, id);
    if (r && r.resumed_by === null) writeRun(home, { ...r, resumed_by: by, ended_at: r.ended_at ?? iso(Date.now()) } satisfies RunRecord);
  }
}

/**
 * Operator messages that woke no wait (they name an item, or go to the focus), and events that joined
 * a pending wake (`holon notify` and `holon tell` admit at once), that no successful run has consumed.
 * Not those admitted before the agent was last started again (beforeStart).
 */
export function operatorWakes(home: Home, agents: string[], covered: Covered, seen: Set<string>): Wake[] {
  const wakes: Wake[] = [];
  const started = readAgentState(home).started;
  for (const agent of agents) {
    for (const n of newOperatorNudges(home, agent, seen)) {
      if (covered.keys.has(`event:${n.event}`)) continue;
      if (beforeStart(started[agent], n.admitted_at, n.event)) continue;
      const reason = n.source && n.source !== 'operator' ? 'wait_triggered' : 'operator_message';
      wakes.push({ agent, work_item: n.work_item, reason, event: n.event, ...(n.wait ? { wait: n.wait } : {}) });
    }
  }
  return wakes;
}
