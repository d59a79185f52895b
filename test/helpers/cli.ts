import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/holon.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real binary. */
export function holon(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<Run> {
  return new Promise((res) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: opts.cwd, env: { ...cleanEnv(), ...opts.env }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => res({ code: err ? Number((err as any).code ?? 1) : 0, stdout, stderr }),
    );
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    else child.stdin!.end();
  });
}

/**
 * The environment without any HOLON_* the developer may have set, and with the machine's content
 * cache off (store/content-cache.ts): no test depends on the machine's ~/.cache/holon or fills it. A
 * test of that cache passes HOLON_CACHE_DIR (a temp folder) in its own env.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HOLON_')) env[k] = v;
  env.NO_COLOR = '1';
  env.HOLON_CACHE_DIR = 'off';
  return env;
}

const made: string[] = [];
afterEach(() => {
  // Retried: a background process of the test (a task's supervisor, a keeper on its way out) may still
  // be writing its last file in the folder, and one removal would then fail with ENOTEMPTY.
  while (made.length) rmSync(made.pop()!, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

/** A fresh temp folder, removed after the test. */
export function tempDir(prefix = 'holon-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** A temp project with an initialised home; `h(args)` runs holon in it. */
export async function project(agent = 'main') {
  const dir = tempDir();
  const init = await holon(['init', '--agent', agent], { cwd: dir });
  if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
  const h = (args: string[], env: NodeJS.ProcessEnv = {}, input?: string) => holon(args, { cwd: dir, env, input });
  const json = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = await h([...args, '--json'], env);
    if (r.code !== 0) throw new Error(`holon ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const create = async (objective: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) => {
    const r = await h(['new', objective, ...extra], env);
    if (r.code !== 0) throw new Error(`new failed: ${r.stderr}`);
    return r.stdout.trim();
  };
  return { dir, home: join(dir, '.holon'), h, json, create, workFile: (id: string, a = agent) => join(dir, '.holon/agents', a, 'work', `${id}.md`) };
}

export function spawnHolon(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: { ...cleanEnv(), ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
}
