import type { TokenUse } from './runner-output.js';

/** A wake reason (runtime/tick.ts WakeReason), kept as a string here so core does not import runtime. */
export type WakeReason = string;

export const RUN_STATUSES = ['running', 'ok', 'error', 'timeout', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * One run of an agent's runner for one WorkItem, as `holon runs --json` prints it and as stored in
 * local/runs/<id>.json. A record without `ended_at` whose watcher is dead was interrupted.
 */
export interface RunRecord {
  id: string;
  agent: string;
  work_item: string;
  /** The first reason; `reasons` holds every reason coalesced into this run. */
  reason: WakeReason;
  reasons: WakeReason[];
  /** The waits, events and timers behind the reasons. */
  wakes: Array<{ reason: WakeReason; wait?: string; event?: string; timer?: string }>;
  runner: string;
  watcher_pid: number;
  /** The runner's process (group) id while it runs. */
  pid: number | null;
  started_at: string;
  /**
   * The start in epoch milliseconds. `started_at` has whole seconds, and two quick runs of one item
   * (a runner that fails at once, then its retry) share a second: this orders them (runOrder).
   * Absent in records written before it existed.
   */
  started_ms?: number;
  ended_at: string | null;
  duration_ms: number | null;
  status: RunStatus;
  exit_code: number | null;
  signal: string | null;
  error: string | null;
  /** Why the run failed, in one line (core/run-judgement.ts); null for a clean run. */
  cause?: string | null;
  /** The cause is outside the agent (missing runner, API error, timeout, a signal). */
  outside?: boolean;
  /** Problems the runner saw during the run (denied tool calls, `command not found`). */
  problems?: string[];
  session_id: string | null;
  resumed_session: string | null;
  tokens: TokenUse | null;
  cost_usd: number | null;
  revision_before: number | null;
  revision_after: number | null;
  /** Whether the run changed the WorkItem record (null when it could not be told). */
  progress: boolean | null;
  /** This run reached the no-progress limit or the retry limit, and blocked the item. */
  blocked: boolean;
  /** Set on an interrupted run once a later run resumed it (so it is resumed only once). */
  resumed_by: string | null;
}

/** Oldest first: by start to the millisecond where recorded, then by end, then by id. */
export function runOrder(a: RunRecord, b: RunRecord): number {
  const sa = a.started_ms ?? Date.parse(a.started_at);
  const sb = b.started_ms ?? Date.parse(b.started_at);
  return sa - sb || (a.ended_at ?? '~').localeCompare(b.ended_at ?? '~') || a.id.localeCompare(b.id);
}

/**
 * Consecutive runs on one item that ended ok and changed nothing, newest first, back to the last
 * progress or block. Failed runs are counted by the retry limit (core/run-retry.ts), not here.
 */
export function noProgressStreak(runsOldestFirst: RunRecord[]): number {
  let n = 0;
  for (let i = runsOldestFirst.length - 1; i >= 0; i--) {
    const r = runsOldestFirst[i];
    if (r.blocked || r.progress === true) break;
    if (r.status === 'ok' && r.progress === false) n++;
  }
  return n;
}

export const fmtTokens = (t: TokenUse) => `tokens ${t.uncached_input}+${t.cache_read}r+${t.cache_write}w in, ${t.output} out${t.reasoning ? ` (${t.reasoning} reasoning)` : ''}`;

/** Token use and cost summed over runs; null where no run reported any. */
export interface RunTotals {
  runs: number;
  tokens: TokenUse | null;
  cost_usd: number | null;
}

export function sumRuns(runs: Array<Pick<RunRecord, 'tokens' | 'cost_usd'>>): RunTotals {
  let tokens: TokenUse | null = null;
  let cost: number | null = null;
  for (const r of runs) {
    if (r.tokens) {
      const t: TokenUse = (tokens ??= { uncached_input: 0, cache_read: 0, cache_write: 0, output: 0, reasoning: 0 });
      t.uncached_input += r.tokens.uncached_input;
      t.cache_read += r.tokens.cache_read;
      t.cache_write += r.tokens.cache_write;
      t.output += r.tokens.output;
      // Run records written before reasoning was counted have none.
      t.reasoning += r.tokens.reasoning ?? 0;
    }
    if (r.cost_usd !== null) cost = (cost ?? 0) + r.cost_usd;
  }
  return { runs: runs.length, tokens, cost_usd: cost === null ? null : Math.round(cost * 1e6) / 1e6 };
}

/** The one-line History entry a run leaves on its WorkItem. */
export function historyLine(r: RunRecord): string {
  const failedWith = r.status !== 'ok' && r.cause ? ` (${r.cause})` : '';
  const parts = [`run ${r.id} (${r.runner}, ${r.reasons.join('+')}): ${r.status}${failedWith}`];
  if (r.exit_code !== null && !failedWith.startsWith(` (exit ${r.exit_code}`)) parts.push(`exit ${r.exit_code}`);
  if (r.signal) parts.push(r.signal);
  if (r.duration_ms !== null) parts.push(`${(r.duration_ms / 1000).toFixed(1)}s`);
  if (r.tokens) parts.push(fmtTokens(r.tokens));
  if (r.cost_usd !== null) parts.push(`$${r.cost_usd.toFixed(4)}`);
  if (r.progress === false) parts.push('no progress');
  if (r.blocked) parts.push('item blocked');
  return parts.join(', ');
}
