import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { invalid } from '../core/errors.js';
import { parseClaudeOutput, parseCodexOutput, type RunnerReport } from '../core/runner-output.js';

/** How an agent is run, from the `runner` key of its AGENTS.md front matter. */
export interface RunnerConfig {
  preset: 'command' | 'claude' | 'codex';
  /** `command`: the shell command line. `claude`/`codex`: the executable (default `claude` / `codex`). */
  command: string | null;
  /** Extra arguments for `claude`/`codex`, placed before the prompt (e.g. ["--permission-mode", "acceptEdits"]). */
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
 * The process to start: `command` runs through the shell with the prompt on stdin; `claude` and
 * `codex` get the prompt as an argument and resume the session they reported last time.
 */
export function invocation(cfg: RunnerConfig, prompt: string, session: string | null): Invocation {
  switch (cfg.preset) {
    case 'command':
      return { file: cfg.command!, args: [], shell: true, stdin: prompt, parse: null };
    case 'claude':
      return {
        file: cfg.command ?? 'claude',
        args: ['-p', prompt, '--output-format', 'json', ...(session ? ['--resume', session] : []), ...cfg.args],
        shell: false,
        stdin: null,
        parse: parseClaudeOutput,
      };
    case 'codex':
      return {
        file: cfg.command ?? 'codex',
        args: ['exec', '--json', ...cfg.args, ...(session ? ['resume', session] : []), prompt],
        shell: false,
        stdin: null,
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

const MAX_CAPTURE = 4 * 1024 * 1024;

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
  let stdout = '';
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
    if (stdout.length < MAX_CAPTURE) stdout += d.toString('utf8');
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
      const outcome = { exit_code: code, signal, timed_out: timedOut, stdout, spawn_error: spawnError };
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
