import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { project } from '../helpers/cli.js';
import { runRecords, setRunner } from '../helpers/watch.js';
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
export async function agentProject(preset: Preset, opts: { runner?: string; runTimeout?: string } = {}) {
  const bin = requireCli(preset);
  const p = await project('rev');
  const api: StandIn = await (preset === 'claude' ? startAnthropic() : startOpenAI());
  const env: NodeJS.ProcessEnv = {
    ...(preset === 'claude' ? claudeEnv(p.dir, api.url) : codexEnv(p.dir, api.url)),
    PATH: `${dirname(bin)}:${process.env.PATH}`,
  };
  setRunner(p.home, 'rev', opts.runner ?? `{preset: ${preset}}`);
  if (opts.runTimeout) {
    const file = join(p.home, 'agents/rev/AGENTS.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/run_timeout: "[^"]*"/, `run_timeout: "${opts.runTimeout}"`));
  }
  /** One `holon watch --once`: the runs it started. */
  const once = async (): Promise<any[]> => {
    const r = await p.h(['watch', '--once', '--json'], env);
    if (r.code !== 0) throw new Error(`watch --once exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout).runs;
  };
  const log = (run: { id: string }) => readFileSync(join(p.home, 'local/runs', `${run.id}.log`), 'utf8');
  const sessions = () => JSON.parse(readFileSync(join(p.home, 'local/runs/sessions.json'), 'utf8'));
  return { ...p, api, env, once, log, sessions, runs: () => runRecords(p.home), close: () => api.close() };
}

/** All text of a model request (messages or Responses input), to look for what the agent was shown. */
export const requestText = (body: any): string => JSON.stringify(body?.messages ?? body?.input ?? body);
