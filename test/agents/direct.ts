import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BIN, cleanEnv, holon, tempDir } from '../helpers/cli.js';
// @ts-expect-error plain ESM helpers shared with the capture script
import { claudeEnv, codexEnv } from './agent-env.mjs';
// @ts-expect-error plain ESM helpers shared with the capture script
import { startAnthropic, startOpenAI } from './stand-ins.mjs';
import { requireCli, type Preset, type StandIn } from './harness.js';

/**
 * For the tests that start the real CLI themselves (a session as a person would run it, or a work
 * thread's child), not through `holon watch`: a temp git repository with a home, the CLI's
 * environment against a fresh stand-in, and a way to run the CLI or holon in it.
 */
export async function agentRepo(preset: Preset, agent = 'dev') {
  const bin = requireCli(preset);
  const dir = tempDir('holon-agent-');
  execFileSync('git', ['init', '-q', dir]);
  // The CLI's own HOME (agent-env.mjs puts it in the folder) is not the project's work.
  appendFileSync(join(dir, '.git/info/exclude'), 'agent-home/\n');
  const api: StandIn = await (preset === 'claude' ? startAnthropic() : startOpenAI());
  // The developer's HOLON_* never leak in; holon itself is NOT on PATH: the agent reaches it only
  // through the commands `holon setup` wrote (hooks, MCP server), which name bin/holon.js.
  const env: NodeJS.ProcessEnv = {
    ...cleanEnv(),
    ...(preset === 'claude' ? claudeEnv(dir, api.url) : codexEnv(dir, api.url)),
    PATH: `${dirname(bin)}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  };
  const run = (args: string[], input?: string) => holon(args, { cwd: dir, env, input });
  const h = async (args: string[], input?: string) => {
    const r = await run(args, input);
    if (r.code !== 0) throw new Error(`holon ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  const json = async (args: string[]) => JSON.parse(await h([...args, '--json']));
  await h(['init', '--agent', agent]);
  /** Runs the real CLI in the repository; resolves when it exits (the stand-in answers meanwhile). */
  const cli = (args: string[], stdin = '') =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(bin, args, { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.stdin.end(stdin);
      const t = setTimeout(() => child.kill('SIGKILL'), 90_000);
      child.on('close', (code) => (clearTimeout(t), resolve({ code, stdout, stderr })));
    });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' });
  return { dir, api, env, run, h, json, cli, git, holonBin: `${process.execPath} ${BIN}`, close: () => api.close() };
}

/** Every content block of every message the model was sent in `body` (Anthropic messages). */
export function blocks(body: any): any[] {
  return (body?.messages ?? []).flatMap((m: any) => (Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }]));
}
