import type { RunnerReport } from './runner-output.js';

/** How the runner's process ended, as runtime/runners.ts reports it, plus whether the watcher stopped it. */
export interface ProcessEnd {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  spawn_error: string | null;
  /** The watcher killed it on shutdown. */
  interrupted: boolean;
}

export interface JudgeInput {
  /** The runner preset: `command`, `claude`, `codex`. */
  runner: string;
  end: ProcessEnd;
  /** What the runner reported (null for a `command` runner, which reports nothing). */
  report: RunnerReport | null;
  /** Whether the run changed its WorkItem (null when it could not be told). */
  progress: boolean | null;
  /** The run_timeout as written (for the cause of a timeout). */
  timeout?: string;
  /** The last non-empty line of the run's log, to say more about a bare non-zero exit. */
  lastLine?: string | null;
}

export type JudgedStatus = 'ok' | 'error' | 'timeout' | 'interrupted';

export interface Judgement {
  status: JudgedStatus;
  /** What went wrong, in one line (null for a clean run). */
  cause: string | null;
  /** The cause is outside the agent (missing runner, API error, timeout, a signal): a retry may succeed. */
  outside: boolean;
  /** Problems the runner saw during the run (denied tool calls, `command not found`), kept on the record. */
  problems: string[];
}

const MAX_CAUSE = 300;

/** One line, at most MAX_CAUSE characters. */
export function oneLine(text: string): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > MAX_CAUSE ? `${s.slice(0, MAX_CAUSE - 3)}...` : s;
}

/** Signals a shell reports as exit 128+N when the command it ran was killed. */
const SIGNALS: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 3: 'SIGQUIT', 6: 'SIGABRT', 9: 'SIGKILL', 11: 'SIGSEGV', 13: 'SIGPIPE', 15: 'SIGTERM' };

const withTail = (head: string, tail: string | null | undefined) => (tail && tail.trim() ? `${head}: ${tail}` : head);

/**
 * Judges a run by what happened, in this order: stopped by the watcher, past its timeout, could not be
 * started, killed by a signal (for a `command` runner, also a shell's exit 128+N), an API error the runner reported (`report.outside`), a shell that could
 * not find or execute a `command` runner (exit 127/126), a non-zero exit, an error result, and
 * problems seen in a run that changed nothing. Only the first applies; its cause is the run's cause.
 */
export function judgeRun(input: JudgeInput): Judgement {
  const { end, report, runner } = input;
  const problems = (report?.problems ?? []).map(oneLine).filter(Boolean);
  const judged = (status: JudgedStatus, cause: string | null, outside: boolean): Judgement => ({ status, cause: cause === null ? null : oneLine(cause), outside, problems });
  if (end.interrupted) return judged('interrupted', 'stopped by the watcher before it ended (shutdown)', true);
  if (end.timed_out) {
    // A runner still failing to reach its model API when it was killed says why it had no result.
    const said = report?.outside && report.error ? `; the runner last said: ${report.error}` : '';
    return judged('timeout', `no result within the run timeout${input.timeout ? ` (${input.timeout})` : ''}; its process group was killed${said}`, true);
  }
  if (end.spawn_error) {
    const missing = /ENOENT/.test(end.spawn_error);
    return judged('error', missing ? `runner not found: ${end.spawn_error} (install it, or set runner.command to its path)` : `could not start the runner: ${end.spawn_error}`, true);
  }
  if (end.signal && end.exit_code === null) return judged('error', `killed by ${end.signal}`, true);
  if (report?.outside) return judged('error', report.error ?? 'the model API failed', true);
  if (runner === 'command' && end.exit_code === 127) return judged('error', withTail('runner command not found (exit 127)', input.lastLine), true);
  const shellSignal = runner === 'command' && end.exit_code !== null ? SIGNALS[end.exit_code - 128] : undefined;
  if (shellSignal) return judged('error', `killed by ${shellSignal} (exit ${end.exit_code})`, true);
  if (runner === 'command' && end.exit_code === 126) return judged('error', withTail('runner command not executable (exit 126)', input.lastLine), true);
  if (end.exit_code !== 0) {
    const said = report && !report.ok && report.error ? `exit ${end.exit_code}: ${report.error}` : withTail(`exit ${end.exit_code}`, input.lastLine);
    return judged('error', said, false);
  }
  if (report && !report.ok) return judged('error', report.error ?? 'the runner reported an error', false);
  const listed = problems.length ? `${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}` : null;
  if (listed && input.progress !== true) return judged('error', listed, false);
  return judged('ok', listed ? `ok, with problems: ${listed}` : null, false);
}
