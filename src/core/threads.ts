/**
 * Work threads (SPEC section 8, seed 004): a persistent child agent resumed one bounded command at a
 * time. This module is the pure part: the records' shapes, the CommandResult schema and its check,
 * the lifecycle rules, and what the child is given. No fs, no process, no clock.
 */
import { conflict, invalid } from './errors.js';
import { validateJson, type Schema } from './json-schema.js';
import type { SessionTotals, TokenUse } from './runner-output.js';

export const THREAD_STATES = ['idle', 'running', 'blocked', 'compacted', 'closed'] as const;
export type ThreadState = (typeof THREAD_STATES)[number];

export const THREAD_RUNNERS = ['command', 'claude', 'codex'] as const;
export type ThreadRunner = (typeof THREAD_RUNNERS)[number];

/** What the child may see of earlier commands: everything, status and summary only, or nothing. */
export const CONTEXT_POLICIES = ['full', 'summaries', 'none'] as const;
export type ContextPolicy = (typeof CONTEXT_POLICIES)[number];

/** Fixed at creation and attached to every resume and compaction: it never changes afterwards. */
export interface ThreadPolicy {
  runner: ThreadRunner;
  /** `command`: the shell command line; `claude`/`codex`: the executable (default: the preset's name). */
  command: string | null;
  model: string | null;
  tools: string[];
  scope: string[];
  context_policy: ContextPolicy;
}

export interface ThreadRecord {
  id: string;
  agent: string;
  role: string;
  policy: ThreadPolicy;
  work_item: string | null;
  /** The checkout the child works in (where git tells what it changed), relative to the home's project folder. */
  workdir: string;
  created_at: string;
  created_by: string;
  state: ThreadState;
  active_command: string | null;
  /** The runner's session (Claude session id, Codex thread id) to resume; null starts a fresh one. */
  session_id: string | null;
  /** Counts sessions: 1 at creation, +1 on every compaction. */
  session: number;
  /** The latest checkpoint's id (ck-N), or null. */
  checkpoint: string | null;
  command_count: number;
  last_command: string | null;
  updated_at: string;
  closed_at: string | null;
  close_reason: string | null;
}

/** The RFC's WorkCommand as holon records it. */
export interface WorkCommand {
  objective: string;
  scope: string[];
  constraints: string[];
  context_refs: string[];
  expected_result: string | null;
}

export interface CommandResult {
  status: 'completed' | 'blocked' | 'failed';
  summary: string;
  files_read?: string[];
  files_changed?: string[];
  validation?: string[];
  discoveries?: string[];
  blocker?: string | null;
  ready_for_next: boolean;
}

/** What git says the command changed, against the thread's and the command's write scope. */
export interface ScopeCheck {
  checked: boolean;
  /** Why it could not be checked (no git checkout). */
  reason: string | null;
  changed: string[];
  outside_scope: string[];
  /** Changed in the checkout but not in the child's files_changed. */
  unreported: string[];
}

export interface CommandRecord extends WorkCommand {
  id: string;
  thread: string;
  seq: number;
  session: number;
  status: 'running' | 'finished' | 'interrupted';
  sent_at: string;
  /**
   * The send in epoch milliseconds. `sent_at` has whole seconds, and a command sent just after a reopen
   * of its item shares that second: this tells it from the spending before the reopen (core/budget.ts).
   * Null in records written before it existed.
   */
  sent_ms?: number | null;
  sent_by: string;
  /** The machine that runs it: only that machine's tick may judge it interrupted. */
  host: string | null;
  ended_at: string | null;
  result: CommandResult | null;
  /** Why the answer was not accepted as is (schema problems, runner errors); empty when it was. */
  result_errors: string[];
  /** The child's raw answer, kept when it did not validate. */
  raw_output: string | null;
  usage: TokenUse | null;
  cost_usd: number | null;
  exit_code: number | null;
  session_id: string | null;
  resumed_session: string | null;
  scope_check: ScopeCheck | null;
  event: string | null;
}

export interface Checkpoint {
  id: string;
  thread: string;
  session: number;
  text: string;
  written_by: 'parent' | 'child';
  created_at: string;
  /** The commands the checkpoint sums up (ids). */
  covers: string[];
  usage: TokenUse | null;
}

const strList: Schema = { type: 'array', items: { type: 'string' } };

/** The RFC's CommandResult: holon validates every answer against it. */
export const COMMAND_RESULT_SCHEMA: Schema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['completed', 'blocked', 'failed'] },
    summary: { type: 'string', minLength: 1 },
    files_read: strList,
    files_changed: strList,
    validation: strList,
    discoveries: strList,
    blocker: { type: ['string', 'null'] },
    ready_for_next: { type: 'boolean' },
  },
  required: ['status', 'summary', 'ready_for_next'],
  additionalProperties: false,
};

/**
 * The same shape with every field required (blocker may be null): strict structured-output modes
 * (Codex --output-schema) want all properties listed; any answer to it also satisfies the RFC schema.
 */
export const STRICT_RESULT_SCHEMA: Schema = { ...COMMAND_RESULT_SCHEMA, required: Object.keys(COMMAND_RESULT_SCHEMA.properties!) };

export function checkCommandResult(value: unknown): string[] {
  return validateJson(COMMAND_RESULT_SCHEMA, value);
}

/**
 * Reads a child's answer: a JSON object (alone, in a ```json fence, or the last `{...}` line of the
 * text). Returns the value, or why none could be read.
 */
export function extractJson(text: string): { value: unknown; error: string | null } {
  const t = text.trim();
  if (!t) return { value: undefined, error: 'the answer is empty' };
  const tries = [t];
  const fence = /```(?:json)?\s*\n([\s\S]*?)\n```/g;
  for (const m of t.matchAll(fence)) tries.push(m[1]);
  const lines = t.split('\n').filter((l) => l.trim().startsWith('{'));
  if (lines.length) tries.push(lines[lines.length - 1]);
  const first = t.indexOf('{');
  const last = t.lastIndexOf('}');
  if (first !== -1 && last > first) tries.push(t.slice(first, last + 1));
  for (const s of tries) {
    try {
      return { value: JSON.parse(s), error: null };
    } catch {
      // try the next reading
    }
  }
  return { value: undefined, error: 'the answer is not JSON' };
}

/** The result recorded when the child's answer could not be used: status failed, with why. */
export function failedResult(why: string): CommandResult {
  return { status: 'failed', summary: why, files_read: [], files_changed: [], validation: [], discoveries: [], blocker: null, ready_for_next: false };
}

/** A send is allowed only to a thread that is not running and not closed: no implicit queue. */
export function assertCanSend(t: ThreadRecord): void {
  if (t.state === 'closed') throw invalid(`thread ${t.id} is closed${t.close_reason ? ` (${t.close_reason})` : ''}: it takes no more commands`, 'create a new thread: holon thread create --role ...');
  if (t.state === 'running') {
    throw conflict(`thread ${t.id} is running command ${t.active_command}; it takes one command at a time`, `wait for it (holon wait ID --for thread:${t.id} --reason ...) or check it with holon thread inspect ${t.id}, then send again`, { running_command: t.active_command });
  }
}

export function assertCanCompact(t: ThreadRecord): void {
  if (t.state === 'closed') throw invalid(`thread ${t.id} is closed: there is nothing to compact`, 'closed threads are kept as they are; see holon thread inspect');
  if (t.state === 'running') throw conflict(`thread ${t.id} is running command ${t.active_command}: compact it once the command has ended`, `holon thread inspect ${t.id}`, { running_command: t.active_command });
}

export function assertCanClose(t: ThreadRecord): void {
  if (t.state === 'running') throw conflict(`thread ${t.id} is running command ${t.active_command}: close it once the command has ended`, `holon thread inspect ${t.id}`, { running_command: t.active_command });
}

/** The thread's state once a command ended: blocked when the child says so, else idle. */
export function stateAfter(result: CommandResult | null): ThreadState {
  return result?.status === 'blocked' ? 'blocked' : 'idle';
}

export const ZERO_USAGE: TokenUse = { uncached_input: 0, cache_read: 0, cache_write: 0, output: 0, reasoning: 0 };

/** Sums token use (commands and checkpoints); missing reports count as zero. */
export function sumUsage(uses: Array<TokenUse | null | undefined>): TokenUse {
  const t = { ...ZERO_USAGE };
  for (const u of uses) {
    if (!u) continue;
    t.uncached_input += u.uncached_input;
    t.cache_read += u.cache_read;
    t.cache_write += u.cache_write;
    t.output += u.output;
    t.reasoning += u.reasoning ?? 0;
  }
  return t;
}

/**
 * What a resumed session's runner prints as its running totals, from the earlier runs of that session
 * (their own figures, as holon recorded them): codex reports a resumed thread's whole token use and
 * claude its whole cost, so a command's own share is the printed total minus this (see perRun).
 * Null for a fresh session. Tokens the session spent without a record (a compaction that gave no
 * checkpoint) are counted in the next command.
 */
export function sessionTotalsBefore(earlier: Array<{ usage: TokenUse | null; cost_usd: number | null }>): SessionTotals | null {
  if (!earlier.length) return null;
  const withUsage = earlier.filter((c) => c.usage);
  const costs = earlier.map((c) => c.cost_usd).filter((x): x is number => typeof x === 'number');
  return {
    tokens: withUsage.length ? sumUsage(withUsage.map((c) => c.usage)) : null,
    cost_usd: costs.length ? Math.round(costs.reduce((a, b) => a + b, 0) * 1e10) / 1e10 : null,
  };
}

/** Reads a token report a command runner printed (`usage` beside its result); null when absent or malformed. */
export function usageFrom(v: unknown): TokenUse | null {
  if (!v || typeof v !== 'object') return null;
  const u = v as Record<string, unknown>;
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
  return { uncached_input: n(u.uncached_input), cache_read: n(u.cache_read), cache_write: n(u.cache_write), output: n(u.output), reasoning: n(u.reasoning) };
}

/** Earlier commands as the context policy lets the child see them. */
export function historyFor(policy: ContextPolicy, earlier: CommandRecord[]) {
  if (policy === 'none') return [];
  return earlier.map((c) => {
    const base = { id: c.id, seq: c.seq, objective: c.objective, status: c.status };
    if (policy === 'summaries') return { ...base, result: c.result ? { status: c.result.status, summary: c.result.summary } : null };
    return { ...base, scope: c.scope, constraints: c.constraints, context_refs: c.context_refs, expected_result: c.expected_result, result: c.result };
  });
}

export const ONLY_THIS_COMMAND =
  'Do only this command. Do not start other work, and do not infer or perform later steps of any backlog: the parent decides what comes next. Stop when this command is done (or cannot be done) and answer.';

export const RESULT_INSTRUCTIONS =
  'Answer with one JSON object, the CommandResult: status ("completed", "blocked" or "failed"), summary, files_read, files_changed (repository paths you changed), validation (checks you ran and their outcome), discoveries, blocker (why you are blocked, else null), ready_for_next (true when the thread can take the next command).';

const policyLines = (t: ThreadRecord) => [
  `- runner: ${t.policy.runner}${t.policy.model ? `, model ${t.policy.model}` : ''}`,
  `- tools: ${t.policy.tools.length ? t.policy.tools.join(', ') : 'the runner\'s defaults'}`,
  `- write scope: ${t.policy.scope.length ? t.policy.scope.join(', ') : 'not limited'} (a change outside it is reported to the parent)`,
  `- context policy: ${t.policy.context_policy}`,
];

function commandLines(c: CommandRecord, scope: string[]): string[] {
  const L = [`# Command ${c.seq} (${c.id})`, '', `Objective: ${c.objective}`];
  if (scope.length) L.push(`Write scope for this command: ${scope.join(', ')}`);
  for (const x of c.constraints) L.push(`Constraint: ${x}`);
  for (const x of c.context_refs) L.push(`Context: ${x}`);
  if (c.expected_result) L.push(`Expected result: ${c.expected_result}`);
  return L;
}

/** The write scope a command runs under: its own when given (within the thread's), else the thread's. */
export const effectiveScope = (t: ThreadRecord, c: Pick<WorkCommand, 'scope'>) => (c.scope.length ? c.scope : t.policy.scope);

/**
 * The prompt for a claude/codex child. A fresh session starts from role, policy and checkpoint; a
 * resumed one repeats role and policy (policy stays attached) and carries the rest in its session.
 */
export function threadPrompt(t: ThreadRecord, c: CommandRecord, checkpoint: string | null, fresh: boolean): string {
  const L = [`You are work thread ${t.id} of holon, a persistent specialist. Your role: ${t.role}`, '', 'Policy:', ...policyLines(t), ''];
  if (fresh && checkpoint) L.push('Checkpoint of your earlier work on this thread (from before a compaction):', '', checkpoint, '');
  L.push(...commandLines(c, effectiveScope(t, c)), '', ONLY_THIS_COMMAND, RESULT_INSTRUCTIONS);
  return L.join('\n');
}

/** The prompt that asks a claude/codex child for a checkpoint before its session is compacted. */
export function compactPrompt(t: ThreadRecord): string {
  return [
    `You are work thread ${t.id} of holon. Your role: ${t.role}`,
    '',
    'The parent compacts this thread: the next command starts a fresh session from your checkpoint, your role and your policy.',
    'Write the checkpoint now: what you know of the subsystem, the invariants and decisions so far, the files that matter, what is open. Plain text, as short as it can be while complete.',
    'Do not change any file and do not start other work: answer with the checkpoint text only.',
  ].join('\n');
}

/** The one JSON object a `command` runner gets on stdin for a command. */
export function commandInput(t: ThreadRecord, c: CommandRecord, earlier: CommandRecord[], checkpoint: string | null) {
  return {
    op: 'command',
    thread: { id: t.id, agent: t.agent, role: t.role, policy: t.policy, work_item: t.work_item, session: t.session, checkpoint },
    command: { id: c.id, seq: c.seq, objective: c.objective, scope: effectiveScope(t, c), constraints: c.constraints, context_refs: c.context_refs, expected_result: c.expected_result },
    history: historyFor(t.policy.context_policy, earlier),
    instructions: `${ONLY_THIS_COMMAND} ${RESULT_INSTRUCTIONS} Print it as JSON on stdout; you may add "usage" {uncached_input, cache_read, cache_write, output} and "session_id" beside its fields.`,
    result_schema: COMMAND_RESULT_SCHEMA,
  };
}

/** The JSON object a `command` runner gets on stdin when the parent compacts without a checkpoint text. */
export function compactInput(t: ThreadRecord, earlier: CommandRecord[], checkpoint: string | null) {
  return {
    op: 'compact',
    thread: { id: t.id, agent: t.agent, role: t.role, policy: t.policy, work_item: t.work_item, session: t.session, checkpoint },
    history: historyFor('full', earlier),
    instructions: 'Write a checkpoint of this thread: print {"checkpoint": TEXT} as JSON on stdout (you may add "usage"). Change no file.',
  };
}

/** Splits what a runner printed into its CommandResult and the extras holon reads beside it. */
export function splitAnswer(value: unknown): { result: unknown; usage: TokenUse | null; session_id: string | null } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { result: value, usage: null, session_id: null };
  const { usage, session_id, ...rest } = value as Record<string, unknown>;
  return { result: rest, usage: usageFrom(usage), session_id: typeof session_id === 'string' && session_id ? session_id : null };
}

/** The payload of a finished command's event: what the parent reads when it is woken. */
export function commandPayload(c: CommandRecord): string {
  const r = c.result;
  const L = [`thread ${c.thread} command ${c.seq} (${c.id}) ${c.status}: ${r ? r.status : 'no result'}`, `objective: ${c.objective}`];
  if (r) {
    L.push(`summary: ${r.summary}`);
    if (r.blocker) L.push(`blocker: ${r.blocker}`);
    if (r.files_changed?.length) L.push(`files changed: ${r.files_changed.join(', ')}`);
    L.push(`ready for next: ${r.ready_for_next ? 'yes' : 'no'}`);
  }
  if (c.scope_check?.outside_scope.length) L.push(`OUTSIDE SCOPE: ${c.scope_check.outside_scope.join(', ')}`);
  if (c.result_errors.length) L.push(`problems: ${c.result_errors.join('; ')}`);
  L.push(`full record: holon thread inspect ${c.thread} --json`);
  return L.join('\n');
}
