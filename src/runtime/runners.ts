import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { invalid } from '../core/errors.js';
import { parseClaudeOutput, parseCodexOutput, type RunnerReport } from '../core/runner-output.js';

/** How an agent is run, from the `runner` key of its AGENTS.md front matter. */
export interface RunnerConfig {
  preset: 'command' | 'claude' | 'codex';
  /** `command`: the shell command line. `claude`/`codex`: the executable (default `claude` / `codex`). */
  command: string | null;
  /** Extra arguments for `claude`/`codex` after the preset's own (e.g. ["--allowedTools", "Edit Write"], ["--model", "o3"]). */
  args: string[];
}

/** Reads the runner config; null when the agent has none (the watcher then starts no runs for it). */
export function runnerConfig(front: Record<string, unknown>, file: string): RunnerConfig | null {
  const r = front.runner as Record<string, unknown> | string | undefined | null;
  if (r == null) return null;
  const fix = 'write e.g. runner: {preset: command, command: "./agent.sh"}, runner: {preset: claude} or runner: {preset: codex}';
  if (typeof r === 'string') return runnerConfig({ runner: { preset: r } }, file);
  if (typeof r !== 'object') throw invalid(`${file}: runner must be a mapping`, fix);
  const preset = String(r.preset ?? 'command');
  if (!['command', 'claude', 'codex'].includes(preset)) throw invalid(`${file}: unknown runner preset "${preset}"`, fix);
  const command = r.command == null || String(r.command).trim() === '' ? null : String(r.command);
  if (preset === 'command' && !command) return null;
  const args = Array.isArray(r.args) ? r.args.map(String) : [];
  return { preset: preset as RunnerConfig['preset'], command, args };
}

export interface Invocation {
  file: string;
  args: string[];
  shell: boolean;
  stdin: string | null;
  parse: ((stdout: string) => RunnerReport) | null;
}

/**
 * What a preset adds so the agent can record its work with no extra configuration (checked against
 * Claude Code 2.1.332 and codex-cli 0.171.0):
 * - claude: `-p` runs with no one to answer a permission prompt, so every tool call not allowed is
 *   denied; `--allowedTools "Bash(holon *)"` lets the agent run holon commands. `stream-json --verbose`
 *   also prints the tool calls and results, so denied or failing commands can be reported.
 * - codex: `--full-auto` is gone; `--sandbox workspace-write` lets the agent write in the checkout (and
 *   .holon/ in it), `approval_policy="never"` never waits for a person, `allow_login_shell=false` keeps
 *   tool commands out of `bash -lc`, whose login profile resets PATH and loses holon, and
 *   `--skip-git-repo-check` runs in a home whose folder is not a git checkout.
 */
export const CLAUDE_ARGS = ['--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash(holon *)'];

/**
 * The codex preset's flags minus those the user's `args` already give: codex refuses a flag given
 * twice ("the argument '--sandbox <SANDBOX_MODE>' cannot be used multiple times"), and
 * `--dangerously-bypass-approvals-and-sandbox` replaces the sandbox choice.
 */
export function codexPresetArgs(user: string[]): string[] {
  const has = (...names: string[]) => user.some((a) => names.includes(a) || names.some((n) => n.startsWith('--') && a.startsWith(`${n}=`)));
  const out: string[] = [];
  if (!has('--sandbox', '-s', '--dangerously-bypass-approvals-and-sandbox')) out.push('--sandbox', 'workspace-write');
  out.push('-c', 'approval_policy="never"', '-c', 'allow_login_shell=false');
  if (!has('--skip-git-repo-check')) out.push('--skip-git-repo-check');
  return out;
}
export const CODEX_ARGS = codexPresetArgs([]);

/**
 * The process to start, the prompt always on stdin: a resume prompt of a busy home can pass the
 * 128 KiB a single argument may have on Linux (spawn fails with E2BIG). `command` runs through the
 * shell; `claude -p` with no prompt argument and `codex exec -` read stdin; both resume the session
 * they reported last time. The user's `args` come after the preset's.
 */
export function invocation(cfg: RunnerConfig, prompt: string, session: string | null): Invocation {
  switch (cfg.preset) {
    case 'command':
      return { file: cfg.command!, args: [], shell: true, stdin: prompt, parse: null };
    case 'claude':
      return {
        file: cfg.command ?? 'claude',
        args: ['-p', ...CLAUDE_ARGS, ...(session ? ['--resume', session] : []), ...cfg.args],
        shell: false,
        stdin: prompt,
        parse: parseClaudeOutput,
      };
    case 'codex':
      return {
        file: cfg.command ?? 'codex',
        args: ['exec', '--json', ...codexPresetArgs(cfg.args), ...cfg.args, ...(session ? ['resume', session] : []), '-'],
        shell: false,
        stdin: prompt,
        parse: parseCodexOutput,
      };
  }
}

export interface ProcessOutcome {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  stdout: string;
  spawn_error: string | null;
}

/**
 * How much stdout is kept for parsing: the head (codex's thread.started, claude's init) and the tail
 * (the result line, turn.completed). A long stream-json run can print far more; what lies between is
 * dropped at a line break, so the parsers see whole lines only. The log file keeps everything.
 */
const HEAD_CAPTURE = 1024 * 1024;
const TAIL_CAPTURE = 3 * 1024 * 1024;

/** Keeps the first `headMax` and the last `tailMax` characters of a stream, cut at line breaks. */
export class HeadTail {
  private head = '';
  private tail = '';
  private dropped = false;
  /** The tail starts at the beginning of a line (nothing was cut off its front). */
  private clean = true;
  constructor(
    private readonly headMax = HEAD_CAPTURE,
    private readonly tailMax = TAIL_CAPTURE,
  ) {}
  push(chunk: string): void {
    if (!this.dropped && this.head.length + chunk.length <= this.headMax) {
      this.head += chunk;
      return;
    }
    if (!this.dropped) {
      const room = this.headMax - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
      this.dropped = true;
      this.clean = this.head.endsWith('\n');
    }
    this.tail += chunk;
    if (this.tail.length > this.tailMax * 2) {
      this.tail = this.tail.slice(-this.tailMax);
      this.clean = false;
    }
  }
  text(): string {
    if (!this.dropped) return this.head;
    let tail = this.tail;
    let clean = this.clean;
    if (tail.length > this.tailMax) {
      tail = tail.slice(-this.tailMax);
      clean = false;
    }
    if (!clean) tail = tail.slice(tail.indexOf('\n') + 1);
    return this.head.slice(0, this.head.lastIndexOf('\n') + 1) + tail;
  }
}

export interface StartedProcess {
  pid: number | null;
  done: Promise<ProcessOutcome>;
  /** Kills the whole process group (the runner and whatever it started). */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts the runner in its own process group (so a timeout or shutdown kills everything it started),
 * with stdout kept for parsing and stdout+stderr appended to `logFile`.
 */
export function startProcess(inv: Invocation, opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; logFile: string }): StartedProcess {
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  const child = spawn(inv.file, inv.args, { cwd: opts.cwd, env: opts.env, shell: inv.shell, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout = new HeadTail();
  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!child.pid) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  child.stdout!.on('data', (d: Buffer) => {
    stdout.push(d.toString('utf8'));
    log.write(d);
  });
  child.stderr!.on('data', (d: Buffer) => log.write(d));
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(inv.stdin ?? '');
  let hardKill: NodeJS.Timeout | undefined;
  // Node fires a delay over 2^31-1 ms (about 24.8 days) at once: a longer run_timeout means no limit in practice.
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup('SIGTERM');
    hardKill = setTimeout(() => killGroup('SIGKILL'), 3000);
    hardKill.unref();
  }, Math.min(opts.timeoutMs, 2 ** 31 - 1));
  const done = new Promise<ProcessOutcome>((resolve) => {
    let spawnError: string | null = null;
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (hardKill) clearTimeout(hardKill);
      // Resolve once the log is on disk, so the run's judgement can read its last line.
      const outcome = { exit_code: code, signal, timed_out: timedOut, stdout: stdout.text(), spawn_error: spawnError };
      let resolved = false;
      const done = () => {
        if (resolved) return;
        resolved = true;
        clearTimeout(fallback);
        resolve(outcome);
      };
      const fallback = setTimeout(done, 1000);
      log.once('close', done);
      log.once('error', done);
      log.end();
    };
    child.on('error', (err) => {
      spawnError = err.message;
      finish(null, null);
    });
    // 'close' waits for the output pipes; a background process the runner left holding them must not
    // keep the run open, so the run ends at most a second after the runner exits.
    child.on('exit', (code, signal) => setTimeout(() => finish(code, signal), 1000).unref());
    child.on('close', (code, signal) => finish(code, signal));
  });
  return { pid: child.pid ?? null, done, kill: killGroup };
}
