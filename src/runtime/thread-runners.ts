import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseClaudeOutput, parseCodexOutput, perRun, type SessionTotals, type TokenUse } from '../core/runner-output.js';
import { extractJson, STRICT_RESULT_SCHEMA, type ThreadRecord } from '../core/threads.js';
import { parseDuration } from '../core/time.js';
import type { Home } from '../store/home.js';
import { threadLocalDir, workdirOf } from '../store/threads.js';
import { invocation, startProcess, type Invocation, type RunnerConfig } from './runners.js';

/** What one child invocation gave back, before holon judges it. */
export interface ChildAnswer {
  /** The parsed JSON answer (a CommandResult or a checkpoint object), or undefined. */
  value: unknown;
  /** The child's answer as text (kept when it does not validate). */
  raw: string;
  /** Why no answer could be read (runner error, no JSON); null when one was. */
  error: string | null;
  usage: TokenUse | null;
  cost_usd: number | null;
  session_id: string | null;
  exit_code: number | null;
}

export type ChildRequest =
  | { op: 'command'; stdin: object; prompt: string }
  | { op: 'compact'; stdin: object; prompt: string };

/** The structured-output option of each CLI: claude takes the schema inline, codex a file. */
function schemaArgs(home: Home, t: ThreadRecord, op: ChildRequest['op']): string[] {
  if (op !== 'command') return [];
  if (t.policy.runner === 'claude') return ['--json-schema', JSON.stringify(STRICT_RESULT_SCHEMA)];
  const file = join(threadLocalDir(home), 'command-result.schema.json');
  mkdirSync(threadLocalDir(home), { recursive: true });
  writeFileSync(file, JSON.stringify(STRICT_RESULT_SCHEMA, null, 2) + '\n');
  return ['--output-schema', file];
}

/** The process for this request: the runner presets' invocation, plus the thread's policy and schema. */
export function childInvocation(home: Home, t: ThreadRecord, req: ChildRequest, session: string | null): Invocation {
  const p = t.policy;
  if (p.runner === 'command') return { file: p.command!, args: [], shell: true, stdin: JSON.stringify(req.stdin) + '\n', parse: null };
  // What the preset already passes is not passed twice (codex refuses a repeated option).
  const preset = invocation({ preset: p.runner, command: p.command, args: [] }, req.prompt, session).args;
  const lacks = (...flags: string[]) => !flags.some((f) => preset.includes(f));
  const extra = [...schemaArgs(home, t, req.op)];
  if (p.runner === 'claude') {
    // A thread is there to change files; its scope is checked with git afterwards.
    if (lacks('--permission-mode', '--dangerously-skip-permissions')) extra.push('--permission-mode', 'acceptEdits');
    if (p.model) extra.push('--model', p.model);
    if (p.tools.length) extra.push('--allowedTools', ...p.tools);
  } else {
    if (p.model) extra.push('-m', p.model);
    if (lacks('-s', '--sandbox', '--full-auto', '--dangerously-bypass-approvals-and-sandbox')) extra.push('-s', 'workspace-write');
  }
  const cfg: RunnerConfig = { preset: p.runner, command: p.command, args: extra };
  return invocation(cfg, req.prompt, session);
}

/** Claude's structured answer is `structured_output` of its result object; else its result text. */
function claudeAnswer(stdout: string): string | null {
  try {
    const r = JSON.parse(stdout.trim()) as Record<string, unknown>;
    if (r.structured_output && typeof r.structured_output === 'object') return JSON.stringify(r.structured_output);
  } catch {
    // not one object: fall back to the parsed result text
  }
  return parseClaudeOutput(stdout).result;
}

/**
 * Runs the child once, in the thread's checkout, with its output appended to `logFile`. Never throws
 * for what the child did: a failed start, a crash or an unreadable answer come back as `error`.
 * `before` is what the resumed `session` had used up to now (sessionTotalsBefore): the CLIs print a
 * resumed session's running totals, and the answer carries this run's own share.
 */
export async function runChild(home: Home, t: ThreadRecord, req: ChildRequest, session: string | null, before: SessionTotals | null, env: NodeJS.ProcessEnv, logFile: string, onStart?: (pid: number | null) => void): Promise<ChildAnswer> {
  const inv = childInvocation(home, t, req, session);
  const timeoutMs = parseDuration(home.config.watch.run_timeout, 'watch.run_timeout in holon.yaml');
  const proc = startProcess(inv, { cwd: workdirOf(home, t), env, timeoutMs, logFile });
  onStart?.(proc.pid);
  // Stopped (Ctrl-C on `send --wait`, SIGTERM to the supervisor): the child goes too, and the command
  // is recorded as failed by that signal instead of staying `running` with a child nobody watches.
  const stop = () => proc.kill('SIGTERM');
  process.once('SIGINT', stop).once('SIGTERM', stop);
  const o = await proc.done.finally(() => process.off('SIGINT', stop).off('SIGTERM', stop));
  const base = { usage: null as TokenUse | null, cost_usd: null as number | null, session_id: null as string | null, exit_code: o.exit_code };
  if (o.spawn_error) return { ...base, value: undefined, raw: o.stdout, error: `could not start ${inv.file}: ${o.spawn_error}` };
  if (o.timed_out) return { ...base, value: undefined, raw: o.stdout, error: `the child ran longer than watch.run_timeout (${home.config.watch.run_timeout}) and was stopped` };
  if (p(t) === 'command') {
    const { value, error } = extractJson(o.stdout);
    const why = error ?? null;
    const exitNote = o.exit_code !== 0 ? `the command exited ${o.signal ? `on ${o.signal}` : `with code ${o.exit_code}`}` : null;
    return { ...base, value, raw: o.stdout, error: why ? [exitNote, why].filter(Boolean).join('; ') : null };
  }
  const report = perRun(p(t) === 'claude' ? parseClaudeOutput(o.stdout) : parseCodexOutput(o.stdout), session ? before : null);
  const text = p(t) === 'claude' ? claudeAnswer(o.stdout) : report.result;
  const common = { ...base, usage: report.tokens, cost_usd: report.cost_usd, session_id: report.session_id };
  if (!report.ok) return { ...common, value: undefined, raw: text ?? o.stdout, error: `${p(t)}: ${report.error ?? 'the run failed'}` };
  if (req.op === 'compact') return { ...common, value: { checkpoint: text ?? '' }, raw: text ?? '', error: text ? null : `${p(t)} gave no checkpoint text` };
  if (!text) return { ...common, value: undefined, raw: o.stdout, error: `${p(t)} gave no final answer` };
  const { value, error } = extractJson(text);
  return { ...common, value, raw: text, error };
}

const p = (t: ThreadRecord) => t.policy.runner;
