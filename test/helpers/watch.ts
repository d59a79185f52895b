import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openHome } from '../../dist/store/home.js';
import { listRuns } from '../../dist/store/runs.js';
import type { ChildProcess } from 'node:child_process';
import { project, spawnHolon } from './cli.js';
import { afterEach } from 'vitest';

/** A running `holon watch` child with its stderr log. */
export interface WatchProc {
  child: ChildProcess;
  log(): string;
  /** Resolves when the log matches (rejects after timeoutMs). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM (or another signal) and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/** A `holon watch` in `cwd`; like startKeeper, with no refresh of the frontier answers unless `env` asks (HOLON_INDEX_REFRESH=1). */
export function startWatch(cwd: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): WatchProc {
  const child = spawnHolon(['watch', ...args], { cwd, env: { HOLON_INDEX_REFRESH: '0', ...env } });
  let text = '';
  child.stderr!.on('data', (d) => (text += d));
  child.stdout!.on('data', (d) => (text += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const waitFor = async (re: RegExp, timeoutMs = 60_000) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const m = text.match(re);
      if (m) return m;
      if (child.exitCode !== null) throw new Error(`watch exited (${child.exitCode}) before ${re}:\n${text}`);
      if (Date.now() > end) throw new Error(`timed out waiting for ${re}; log:\n${text}`);
      await sleep(25);
    }
  };
  return {
    child,
    log: () => text,
    waitFor,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const keepers: ChildProcess[] = [];
// A keeper a failed test left running is stopped (it would also stop itself once its home is removed).
afterEach(() => {
  for (const k of keepers.splice(0)) if (k.exitCode === null && k.signalCode === null) k.kill('SIGKILL');
});

/**
 * A `holon index` (the index keeper alone) in `cwd`; `ready()` waits until it keeps the index. It does
 * not refresh the frontier answers in the background unless `env` says HOLON_INDEX_REFRESH=1: the
 * tests of the listing check which path each command took itself.
 */
export function startKeeper(cwd: string, env: NodeJS.ProcessEnv = {}) {
  const proc = spawnHolon(['index'], { cwd, env: { HOLON_INDEX_REFRESH: '0', ...env } });
  keepers.push(proc);
  let text = '';
  proc.stderr!.on('data', (d) => (text += d));
  const exited = new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
  const log = () => text;
  return {
    proc,
    log,
    exited,
    ready: () => until(() => /keeping the work index/.test(text), 30_000, `the keeper; log:\n${text}`),
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls `fn` until it returns a truthy value. */
export async function until<T>(fn: () => T | Promise<T>, timeoutMs = 60_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(30);
  }
}

/** Sets the agent's runner in its AGENTS.md front matter. */
export function setRunner(home: string, agent: string, runner: string): void {
  const file = join(home, 'agents', agent, 'AGENTS.md');
  const text = readFileSync(file, 'utf8').replace(/runner:\n(  .*\n)+/, `runner: ${runner}\n`);
  writeFileSync(file, text);
}

/** Writes an executable script. */
export function script(path: string, text: string): string {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}

/** The run records of a home, oldest first, through the store's own listing. */
export function runRecords(home: string): any[] {
  return listRuns(openHome({ home, cwd: dirname(home), env: {} }));
}

/** Whether a process is gone (a zombie nobody reaped counts as gone: it runs nothing). */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/**
 * A project with `n` items, returned once their files are past the racy window (2 s): a listing then
 * trusts the files' numbers, and a keeper alone decides what is stat'ed again.
 */
export async function settledProject(n: number) {
  const p = await project();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await p.create(`item ${i}`));
  await until(() => ids.every((id) => Date.now() - statSync(p.workFile(id)).ctimeMs > 2100), 30_000, 'files to settle');
  return { p, ids };
}
