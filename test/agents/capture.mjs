#!/usr/bin/env node
// Re-captures the real CLI outputs the parser tests read (test/fixtures/runners/real/): each scenario
// runs the pinned claude or codex (install-clis.mjs) with holon's preset arguments against a fresh
// stand-in, and saves its stdout. Run after `npm run build`:  node test/agents/capture.mjs [NAME-REGEXP]
// Temp paths are replaced by /work/project so captures do not change with the machine.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binOf, claudeEnv, codexEnv } from './agent-env.mjs';
import { startAnthropic, startOpenAI } from './stand-ins.mjs';
import { CLAUDE_ARGS, CODEX_ARGS } from '../../dist/runtime/runners.js';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/runners/real');
mkdirSync(OUT, { recursive: true });

const U1 = { input: 1200, cache_read: 300, cache_write: 800, output: 40, reasoning: 12 };
const U2 = { input: 30, cache_read: 2200, cache_write: 0, output: 12, reasoning: 0 };
const ok = (cmd) => [{ shell: cmd, usage: U1 }, { text: 'Recorded.', usage: U2 }];

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'holon-capture-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'holon'), '#!/bin/sh\necho "recorded: $*"\n');
  chmodSync(join(bin, 'holon'), 0o755);
  execFileSync('git', ['init', '-q', dir]);
  return { dir, bin };
}

// down: the stand-in is closed before the CLI starts (connection refused), and the CLI is killed after
// killAfterMs as a run timeout would; extra: more environment (e.g. the CLI's own retries back on).
async function captureOne(name, preset, turns, { args = [], withHolon = true, resumeOf = null, down = false, killAfterMs = 60_000, extra = {} } = {}) {
  const api = await (preset === 'claude' ? startAnthropic(turns) : startOpenAI(turns));
  if (down) await api.close();
  const ws = resumeOf?.ws ?? workspace();
  const env = {
    PATH: `${withHolon ? `${ws.bin}:` : ''}${dirname(binOf(preset))}:/usr/local/bin:/usr/bin:/bin`,
    ...(preset === 'claude' ? claudeEnv(ws.dir, api.url, extra) : codexEnv(ws.dir, api.url, extra)),
  };
  const session = resumeOf?.session;
  const argv = preset === 'claude'
    ? ['-p', ...(args.length ? args : CLAUDE_ARGS), ...(session ? ['--resume', session] : [])]
    : ['exec', '--json', ...(args.length ? args : CODEX_ARGS), ...(session ? ['resume', session] : []), '-'];
  // Not spawnSync: the stand-in answers from this process's event loop.
  const r = await new Promise((resolve) => {
    // Its own process group: a kill reaches the native binary the npm wrapper starts, as holon's run timeout does.
    const child = spawn(binOf(preset), argv, { cwd: ws.dir, env, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stdin.end('Record your work.');
    const t = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), killAfterMs);
    child.on('close', (status) => (clearTimeout(t), resolve({ status, stdout })));
  });
  if (!down) await api.close();
  if (process.env.CAPTURE_DEBUG) console.log(api.requests.map((q) => `${q.url} main=${q.main} tools=${(q.body?.tools ?? []).length} turn=${JSON.stringify(q.turn)}`).join('\n'));
  const text = r.stdout.split(ws.dir).join('/work/project');
  writeFileSync(join(OUT, name), text);
  const sid = text.match(/"(?:session_id|thread_id)":"([0-9a-f-]{36})"/)?.[1] ?? null;
  console.log(`${name}: exit ${r.status}, ${text.split('\n').filter(Boolean).length} lines, session ${sid}`);
  return { ws, session: sid };
}

const only = process.argv[2] ? new RegExp(process.argv[2]) : null;
const capture = (name, ...rest) => (only && !only.test(name) ? Promise.resolve({ ws: workspace(), session: null }) : captureOne(name, ...rest));
const c1 = await capture('claude-ok.jsonl', 'claude', ok('holon progress w-abc123 "read the diff"'));
await capture('claude-resumed.jsonl', 'claude', ok('holon progress w-abc123 "CI passed"'), { resumeOf: c1 });
await capture('claude-denied.jsonl', 'claude', ok('curl -s http://127.0.0.1:9/status'));
await capture('claude-not-found.jsonl', 'claude', ok('holon progress w-abc123 "read the diff"'), { withHolon: false });
await capture('claude-http-500.jsonl', 'claude', [{ fail: 500 }, { fail: 500 }]);
await capture('claude-http-429.jsonl', 'claude', [{ fail: 429 }, { fail: 429 }]);
// Claude Code asks again after an answer it could not parse: 4 broken answers lose the run, 3 do not.
await capture('claude-malformed.jsonl', 'claude', [{ malformed: true }, { malformed: true }, { malformed: true }, { malformed: true }]);
await capture('claude-malformed-recovered.jsonl', 'claude', [{ malformed: true }, { malformed: true }, { malformed: true }]);
const x1 = await capture('codex-ok.jsonl', 'codex', ok('holon progress w-abc123 "read the diff"'));
await capture('codex-resumed.jsonl', 'codex', ok('holon progress w-abc123 "CI passed"'), { resumeOf: x1 });
await capture('codex-login-shell.jsonl', 'codex', ok('holon progress w-abc123 "read the diff"'), { args: ['--sandbox', 'workspace-write', '--skip-git-repo-check'], withHolon: true });
await capture('codex-http-500.jsonl', 'codex', [{ fail: 500 }, { fail: 500 }]);
await capture('codex-http-429.jsonl', 'codex', [{ fail: 429 }, { fail: 429 }]);
await capture('codex-malformed.jsonl', 'codex', [{ malformed: true }, { malformed: true }]);
// The model API unreachable: Claude Code retrying (its own retries on, as by default) and codex waiting
// for the network, both killed by a run timeout.
await capture('claude-api-down.jsonl', 'claude', [], { down: true, killAfterMs: 6000, extra: { CLAUDE_CODE_MAX_RETRIES: '10' } });
await capture('codex-api-down.jsonl', 'codex', [], { down: true, killAfterMs: 6000 });
rmSync(c1.ws.dir, { recursive: true, force: true });
rmSync(x1.ws.dir, { recursive: true, force: true });
