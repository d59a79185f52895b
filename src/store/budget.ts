import { join } from 'node:path';
import {
  budgetVerdict, dayWindow, layerBudgets, parseBudget, sumSpending,
  type Budget, type BudgetVerdict, type Figure, type SpendEntry, type SpendSince, type Spending,
} from '../core/budget.js';
import type { RunRecord } from '../core/run-record.js';
import type { CommandRecord } from '../core/threads.js';
import type { WorkItem } from '../core/types.js';
import { iso } from '../core/time.js';
import { readAgent } from './agents.js';
import { fileKey, RACY_MS, writeCache } from './cache-file.js';
import { agentDir, listAgents, type Home } from './home.js';
import { listRuns, runsDir } from './runs.js';
import { listCommands, listThreads, threadsDir } from './threads.js';
import { readdirSync, readFileSync, statSync } from 'node:fs';

/**
 * Budgets as the records say (docs/budgets.md): which budget applies to an item (its own, its agent's
 * AGENTS.md `policy.budget`, holon.yaml `budget.item`: per figure the most specific wins), what the
 * item spent (its runs and its threads' commands since `budget_since`), and an agent's day.
 */

/** The item's own budget (front matter `budget:`), or null. A bad one is an error naming the item. */
export function ownBudget(item: WorkItem): Budget | null {
  const raw = item.extra.budget;
  return raw == null ? null : parseBudget(raw, `${item.id} budget`);
}

/**
 * Spending before this moment does not count (set when a budget-blocked item is reopened; exact when
 * written to the ms, as reopens do).
 */
export function budgetSince(item: WorkItem): SpendSince {
  const s = item.extra.budget_since;
  const ms = typeof s === 'string' ? Date.parse(s) : NaN;
  return Number.isNaN(ms) ? { ms: -Infinity, exact: false } : { ms, exact: /\.\d+Z$/.test(s as string) };
}

type AgentPolicy = { budget?: unknown; daily_budget?: unknown };

/**
 * Agents' policies read once per evaluation (the frontier asks for every open item): pass one to the
 * functions below to read each agent's policy once; without one each call reads it afresh.
 */
export type PolicyMemo = Map<string, AgentPolicy>;

/**
 * The budget keys of an agent's AGENTS.md policy, cached by the file's stat key in
 * local/cache/agent-budget-A.json (as capabilities are): the frontier and `pick` ask on every call, and
 * parsing the front matter is what would load the yaml library.
 */
function agentPolicy(home: Home, agent: string, memo?: PolicyMemo): AgentPolicy {
  const hit = memo?.get(agent);
  if (hit) return hit;
  const policy = readAgentPolicy(home, agent);
  memo?.set(agent, policy);
  return policy;
}

function readAgentPolicy(home: Home, agent: string): AgentPolicy {
  const file = join(agentDir(home, agent), 'AGENTS.md');
  const key = fileKey(file);
  const cache = join(home.local, 'cache', `agent-budget-${agent}.json`);
  try {
    const c = JSON.parse(readFileSync(cache, 'utf8')) as { key: string; policy: AgentPolicy };
    if (key && c.key === key) return c.policy;
  } catch {
    // No cache: parse.
  }
  let policy: AgentPolicy;
  try {
    const p = (readAgent(home, agent).config.policy ?? {}) as Record<string, unknown>;
    policy = { ...(p.budget != null ? { budget: p.budget } : {}), ...(p.daily_budget != null ? { daily_budget: p.daily_budget } : {}) };
  } catch {
    // An agent without a readable AGENTS.md has no defaults; `holon check` reports the file.
    return {};
  }
  if (key) writeCache(cache, JSON.stringify({ key, policy }), join(home.local, 'tmp'));
  return policy;
}

/** The budget of an item, layered, with where each figure came from. */
export function itemBudget(home: Home, item: WorkItem, memo?: PolicyMemo): { budget: Budget; source: Partial<Record<Figure, string>> } {
  const policy = item.agent ? agentPolicy(home, item.agent, memo) : {};
  const agentFile = `agents/${item.agent}/AGENTS.md policy.budget`;
  return layerBudgets([
    { source: 'item', budget: ownBudget(item) },
    { source: agentFile, budget: policy.budget == null ? null : parseBudget(policy.budget, agentFile) },
    { source: 'holon.yaml budget.item', budget: home.config.budget.item },
  ]);
}

/** The daily budget of an agent: AGENTS.md `policy.daily_budget` over holon.yaml `budget.daily`. */
export function dailyBudget(home: Home, agent: string, memo?: PolicyMemo): { budget: Budget; source: Partial<Record<Figure, string>> } {
  const policy = agentPolicy(home, agent, memo);
  const agentFile = `agents/${agent}/AGENTS.md policy.daily_budget`;
  return layerBudgets([
    { source: agentFile, budget: policy.daily_budget == null ? null : parseBudget(policy.daily_budget, agentFile) },
    { source: 'holon.yaml budget.daily', budget: home.config.budget.daily },
  ]);
}

const runEntry = (r: RunRecord): SpendEntry => ({ started_at: r.started_at, ended_at: r.ended_at, tokens: r.tokens, cost_usd: r.cost_usd, run: true, duration_ms: r.duration_ms, started_ms: r.started_ms });

const commandEntry = (c: CommandRecord): SpendEntry => ({ started_at: c.sent_at, ended_at: c.ended_at, tokens: c.usage, cost_usd: c.cost_usd, run: false, started_ms: c.sent_ms });

/** Thread commands of an agent (optionally only those of threads for one item), as spending. */
function commandEntries(home: Home, agent: string, item?: string): SpendEntry[] {
  const out: SpendEntry[] = [];
  let threads;
  try {
    threads = listThreads(home, [agent]);
  } catch {
    return out;
  }
  for (const t of threads) {
    if (item && t.work_item !== item) continue;
    for (const c of listCommands(home, agent, t.id)) out.push(commandEntry(c));
  }
  return out;
}

export interface ItemBudgetState {
  budget: Budget;
  source: Partial<Record<Figure, string>>;
  spent: Spending;
  /** Spending counts from here (null: since the item began). */
  since: string | null;
  verdict: BudgetVerdict;
}

/** Every item's spending entries (runs, and the thread commands of `agent`), read once (the frontier's many items). */
export function spendingByItem(home: Home, agent: string): Map<string, SpendEntry[]> {
  const out = new Map<string, SpendEntry[]>();
  const add = (id: string, e: SpendEntry) => {
    const l = out.get(id);
    if (l) l.push(e);
    else out.set(id, [e]);
  };
  // Every agent's runs: an item handed over keeps what it spent before (as `show` counts it).
  for (const r of listRuns(home)) add(r.work_item, runEntry(r));
  try {
    for (const t of listThreads(home, [agent])) if (t.work_item) for (const c of listCommands(home, agent, t.id)) add(t.work_item, commandEntry(c));
  } catch {
    // Unreadable threads add nothing here; `holon check` reports them.
  }
  return out;
}

/** The item's budget, spending and verdict (`entries`: its spending when the caller read it already). */
export function itemBudgetState(home: Home, item: WorkItem, nowMs: number, pre?: SpendEntry[], memo?: PolicyMemo): ItemBudgetState {
  const { budget, source } = itemBudget(home, item, memo);
  const since = budgetSince(item);
  const entries = pre ?? [...listRuns(home, { work: item.id }).filter((r) => r.work_item === item.id).map(runEntry), ...(item.agent ? commandEntries(home, item.agent, item.id) : [])];
  const spent = sumSpending(entries, nowMs, since, true);
  return { budget, source, spent, since: Number.isFinite(since.ms) ? iso(since.ms) : null, verdict: budgetVerdict(budget, spent, home.config.budget.warn, source) };
}

export interface DailyBudgetState {
  budget: Budget;
  source: Partial<Record<Figure, string>>;
  day: string;
  timezone: string;
  /** When the next day starts (the agent runs again then). */
  resets_at: string;
  resetsMs: number;
  spent: Spending;
  verdict: BudgetVerdict;
}

/** The agent's spending today (home time zone) against its daily budget. */
export function dailyBudgetState(home: Home, agent: string, nowMs: number, memo?: PolicyMemo): DailyBudgetState {
  const { budget, source } = dailyBudget(home, agent, memo);
  const tz = home.config.timezone;
  const w = dayWindow(nowMs, tz);
  const inDay = (e: SpendEntry) => Date.parse(e.started_at) < w.endMs;
  const entries = Object.keys(budget).length ? [...listRuns(home, { agent }).map(runEntry), ...commandEntries(home, agent)].filter(inDay) : [];
  const spent = sumSpending(entries, nowMs, w.startMs);
  return { budget, source, day: w.day, timezone: tz, resets_at: iso(w.endMs), resetsMs: w.endMs, spent, verdict: budgetVerdict(budget, spent, home.config.budget.warn, source) };
}

/** Whether any budget could apply to the agent's items (so the frontier reads run records only then). */
export function budgetsConfigured(home: Home, agent: string, memo?: PolicyMemo): { item: boolean; daily: boolean } {
  const policy = agentPolicy(home, agent, memo);
  return {
    item: home.config.budget.item != null || policy.budget != null,
    daily: home.config.budget.daily != null || policy.daily_budget != null,
  };
}

/**
 * What a folder holds: its entries (optionally only those ending in `ext`) with their keys, '' when it
 * is absent. With `renamedOnly`, for a folder only holon writes and always by rename (local/runs), which
 * sets the folder's mtime and ctime to now: the folder's own key then answers for its entries once its
 * mtime is older than RACY_MS (a later change would give a newer mtime), so a run history of any length
 * costs one stat. A folder changed more recently could change again in the same tick: its entries then.
 * Committed records (a thread's) may be edited in place by hand, which no folder stamp shows.
 */
function dirSignature(dir: string, ext?: string, renamedOnly = false): string {
  const s = statSync(dir, { throwIfNoEntry: false });
  if (!s) return '';
  if (renamedOnly && s.mtimeMs < Date.now() - RACY_MS) return `dir:${s.ino}:${s.mtimeMs}:${s.ctimeMs}`;
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => !ext || f.endsWith(ext)).sort();
  } catch {
    return '';
  }
  return names.map((n) => `${n}:${fileKey(join(dir, n)) ?? '-'}`).join('|');
}

/**
 * A signature of what spending is read from, for the frontier cache: the run records, and every
 * agent's threads (thread.yaml names the item, commands/*.yaml carry the tokens, cost and time).
 */
export function spendingSignature(home: Home): string {
  const parts = [dirSignature(runsDir(home), '.json', true)];
  for (const a of listAgents(home)) {
    const dir = threadsDir(home, a);
    let ids: string[];
    try {
      ids = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const t of ids) parts.push(`${a}/${t}:${fileKey(join(dir, t, 'thread.yaml')) ?? '-'}[${dirSignature(join(dir, t, 'commands'), '.yaml')}]`);
  }
  return parts.join('\n');
}
