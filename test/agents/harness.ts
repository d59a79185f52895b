import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { project } from '../helpers/cli.js';
import { runRecords, setRunner, startWatch } from '../helpers/watch.js';
// @ts-expect-error plain ESM helpers shared with the capture script
import { binOf, claudeEnv, codexEnv } from './agent-env.mjs';
// @ts-expect-error plain ESM helpers shared with the capture script
import { startAnthropic, startOpenAI } from './stand-ins.mjs';

export type Preset = 'claude' | 'codex';

export interface Turn {
  shell?: string;
  tool?: { name: string; input: Record<string, unknown>; namespace?: string };
  text?: string;
  fail?: number;
  malformed?: boolean;
  hang?: boolean;
  usage?: { input?: number; cache_read?: number; cache_write?: number; output?: number; reasoning?: number };
}

export interface StandIn {
  url: string;
  requests: Array<{ method: string; url: string; body: any; main: boolean; turn: Turn | null }>;
  readonly mainRequests: Array<{ body: any; turn: Turn | null }>;
  readonly remaining: number;
  push(...turns: Turn[]): void;
  /** Every main request fails with this turn (script untouched) until outage(null). */
  outage(turn: Turn | null): void;
  close(): Promise<void>;
}

/** Fails early with the way out when the tier's CLIs are not installed. */
export function requireCli(preset: Preset): string {
  const bin = binOf(preset);
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`node test/agents/install-clis.mjs\` (npm run test:agents does)`);
  return bin;
}

/**
 * A temp project whose agent `rev` runs the real CLI through its preset, with no extra runner
 * configuration: the CLI is found on PATH, its model API is the stand-in.
 */
export interface AgentOptions {
  runner?: string;
  runTimeout?: string;
  /** holon.yaml `watch:` settings to set (keys `holon init` writes, e.g. retry_limit). */
  watch?: Record<string, string | number>;
  /** More environment for the CLI (after the tier's own, e.g. to turn its retries back on). */
  env?: NodeJS.ProcessEnv;
}

export async function agentProject(preset: Preset, opts: AgentOptions = {}) {
  const bin = requireCli(preset);
  const p = await project('rev');
  const api: StandIn = await (preset === 'claude' ? startAnthropic() : startOpenAI());
  const env: NodeJS.ProcessEnv = {
    ...(preset === 'claude' ? claudeEnv(p.dir, api.url) : codexEnv(p.dir, api.url)),
    PATH: `${dirname(bin)}:${process.env.PATH}`,
    ...opts.env,
  };
  setRunner(p.home, 'rev', opts.runner ?? `{preset: ${preset}}`);
  const profile = join(p.home, 'agents/rev/AGENTS.md');
  const edit = (file: string, re: RegExp, to: string) => {
    const text = readFileSync(file, 'utf8');
    if (!re.test(text)) throw new Error(`${file} has no ${re}`);
    writeFileSync(file, text.replace(re, to));
  };
  /** Sets the agent's run_timeout (its AGENTS.md policy). */
  const runTimeout = (t: string) => edit(profile, /run_timeout: "[^"]*"/, `run_timeout: "${t}"`);
  /** Replaces the agent's runner (after setup it is one line). */
  const runner = (r: string) => edit(profile, /^runner: .*$/m, `runner: ${r}`);
  if (opts.runTimeout) runTimeout(opts.runTimeout);
  for (const [k, v] of Object.entries(opts.watch ?? {})) edit(join(p.home, 'holon.yaml'), new RegExp(`^  ${k}: .*$`, 'm'), `  ${k}: ${JSON.stringify(v)}`);
  /** One `holon watch --once` (on the clock `at` for retries, else the real one): its runs and its log (stderr). */
  const pass = async (at?: number): Promise<{ runs: any[]; log: string }> => {
    const r = await p.h(['watch', '--once', '--json'], at === undefined ? env : { ...env, HOLON_NOW: new Date(at).toISOString() });
    if (r.code !== 0) throw new Error(`watch --once exited ${r.code}: ${r.stderr}`);
    return { runs: JSON.parse(r.stdout).runs, log: r.stderr };
  };
  /** A long-running `holon watch` with the agent's environment (stop it; the close does too). */
  const watchers: Array<ReturnType<typeof startWatch>> = [];
  const watch = () => {
    const w = startWatch(p.dir, [], env);
    watchers.push(w);
    return w;
  };
  /** One `holon watch --once`: the runs it started. */
  const once = async (): Promise<any[]> => (await pass()).runs;
  const log = (run: { id: string }) => readFileSync(join(p.home, 'local/runs', `${run.id}.log`), 'utf8');
  const sessions = () => JSON.parse(readFileSync(join(p.home, 'local/runs/sessions.json'), 'utf8'));
  return { ...p, api, env, once, pass, log, sessions, runTimeout, runner, runs: () => runRecords(p.home), watch, close: async () => {
    for (const w of watchers) await w.stop();
    await api.close();
  } };
}

/** All text of a model request (messages or Responses input), to look for what the agent was shown. */
export const requestText = (body: any): string => JSON.stringify(body?.messages ?? body?.input ?? body);
