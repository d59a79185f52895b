import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { runRecords, script, setRunner } from '../helpers/watch.js';
import { codexPresetArgs, HeadTail } from '../../dist/runtime/runners.js';
import { parseCodexOutput } from '../../dist/core/runner-output.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/runners');

/**
 * Fake `claude` and `codex` executables placed first on PATH: they log their argv, record progress
 * through the real `holon` (as a real agent would), and print a recorded output.
 */
function fakeBin(dir: string) {
  const bin = join(dir, 'fakebin');
  mkdirSync(bin, { recursive: true });
  const common = `
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
fs.appendFileSync(process.env.FAKE_LOG, JSON.stringify({ argv: process.argv.slice(2), stdin: fs.readFileSync(0, 'utf8'), wake: process.env.HOLON_WAKE, item: process.env.HOLON_WORK_ITEM }) + '\\n');
execFileSync('holon', ['progress', process.env.HOLON_WORK_ITEM, 'fake runner step'], { stdio: 'ignore' });
`;
  script(join(bin, 'claude'), `#!/usr/bin/env node
${common}
const out = JSON.parse(fs.readFileSync(${JSON.stringify(join(FIXTURES, 'claude-success.json'))}, 'utf8'));
const i = process.argv.indexOf('--resume');
if (i > 0 && process.env.FAKE_LOST_SESSIONS) {
  process.stderr.write('No conversation found with session ID: ' + process.argv[i + 1] + '\\n');
  process.exit(1);
}
out.session_id = i > 0 ? process.argv[i + 1] : 'sess-first';
process.stdout.write(JSON.stringify(out));
`);
  script(join(bin, 'codex'), `#!/usr/bin/env node
${common}
let out = fs.readFileSync(${JSON.stringify(join(FIXTURES, 'codex-success.jsonl'))}, 'utf8');
const i = process.argv.indexOf('resume');
out = out.replace('019a2d7a-41c4-78b1-b7cc-a45d62a89cd5', i > 0 ? process.argv[i + 1] : 'thread-first');
process.stdout.write(out);
`);
  return bin;
}

/** Marks the item's last run interrupted (as a shutdown does), so the next pass resumes it. */
function interruptLast(home: string) {
  const last = runRecords(home).pop();
  const again = { ...last, id: `${last.id}x`, status: 'interrupted', ended_at: last.ended_at, resumed_by: null };
  writeFileSync(join(home, 'local/runs', `${again.id}.json`), JSON.stringify(again));
}

describe.each([
  ['claude', 'sess-first', { uncached_input: 42, cache_read: 51290, cache_write: 6125, output: 1187, reasoning: 0 }, 0.0873215],
  ['codex', 'thread-first', { uncached_input: 315, cache_read: 24448, cache_write: 0, output: 122, reasoning: 0 }, null],
])('%s runner', (preset, first, tokens, cost) => {
  it('starts a session, records tokens and cost, and resumes the same session next time', async () => {
    const p = await project('rev');
    const bin = fakeBin(p.dir);
    const log = join(p.dir, 'fake.log');
    const env = { PATH: `${bin}:${process.env.PATH}`, FAKE_LOG: log };
    setRunner(p.home, 'rev', `{preset: ${preset}}`);
    const id = await p.create('Review PR #102');
    const one = await p.h(['watch', '--once', '--json'], env);
    expect(one.code).toBe(0);
    const [r1] = JSON.parse(one.stdout).runs;
    expect(r1).toMatchObject({ runner: preset, status: 'ok', session_id: first, resumed_session: null, tokens, cost_usd: cost, progress: true });
    interruptLast(p.home);
    const [r2] = JSON.parse((await p.h(['watch', '--once', '--json'], env)).stdout).runs;
    expect(r2).toMatchObject({ reason: 'interrupted', status: 'ok', session_id: first, resumed_session: first });
    const calls = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(calls).toHaveLength(2);
    if (preset === 'claude') {
      const preset = ['-p', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash(holon *)'];
      expect(calls[0].argv).toEqual(preset);
      expect(calls[1].argv).toEqual([...preset, '--resume', first]);
    } else {
      const preset = ['exec', '--json', '--sandbox', 'workspace-write', '-c', 'approval_policy="never"', '-c', 'allow_login_shell=false', '--skip-git-repo-check'];
      expect(calls[0].argv).toEqual([...preset, '-']);
      expect(calls[1].argv).toEqual([...preset, 'resume', first, '-']);
    }
    // The prompt comes on stdin (an argument has a 128 KiB limit).
    for (const c of calls) expect(c.stdin).toContain(`# Resume ${id}`);
    const sessions = JSON.parse(readFileSync(join(p.home, 'local/runs/sessions.json'), 'utf8'));
    expect(sessions[`rev/${id}`]).toMatchObject({ runner: preset, session_id: first });
    expect(readFileSync(p.workFile(id, 'rev'), 'utf8')).toMatch(/run r-\S+ \((claude|codex), interrupted\): ok, exit 0, [\d.]+s, tokens \d+\+\d+r\+\d+w in, \d+ out/);
  });
});

describe('runner failures', () => {
  it('a session that cannot be resumed is forgotten: the next run starts a new one', async () => {
    const p = await project('rev');
    const bin = fakeBin(p.dir);
    const log = join(p.dir, 'fake.log');
    const env = { PATH: `${bin}:${process.env.PATH}`, FAKE_LOG: log, FAKE_LOST_SESSIONS: '1' };
    setRunner(p.home, 'rev', '{preset: claude}');
    const id = await p.create('x');
    await p.h(['watch', '--once'], env);
    interruptLast(p.home);
    const [lost] = JSON.parse((await p.h(['watch', '--once', '--json'], env)).stdout).runs;
    expect(lost).toMatchObject({ status: 'error', resumed_session: 'sess-first' });
    expect(JSON.parse(readFileSync(join(p.home, 'local/runs/sessions.json'), 'utf8'))[`rev/${id}`]).toBeUndefined();
    // The failed run kept its wake: its retry (due retry_delay later, 30s) starts a new session.
    const due = new Date(Date.parse(lost.ended_at) + 31_000).toISOString();
    const [fresh] = JSON.parse((await p.h(['watch', '--once', '--json'], { ...env, HOLON_NOW: due })).stdout).runs;
    expect(fresh).toMatchObject({ status: 'ok', resumed_session: null, session_id: 'sess-first' });
  });

  it('a runner that is not installed is an error run, recorded with the reason', async () => {
    const p = await project('rev');
    setRunner(p.home, 'rev', '{preset: claude, command: /nonexistent/claude}');
    await p.create('x');
    const [r] = JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs;
    expect(r).toMatchObject({ status: 'error', progress: false });
    expect(r.error).toMatch(/ENOENT|no JSON/);
  });
});

describe('codex preset flags', () => {
  it('leaves out the ones the user gives, since codex refuses a flag given twice', () => {
    const all = ['--sandbox', 'workspace-write', '-c', 'approval_policy="never"', '-c', 'allow_login_shell=false', '--skip-git-repo-check'];
    expect(codexPresetArgs([])).toEqual(all);
    expect(codexPresetArgs(['--model', 'o3'])).toEqual(all);
    for (const user of [['--sandbox', 'read-only'], ['-s', 'danger-full-access'], ['--sandbox=read-only'], ['--dangerously-bypass-approvals-and-sandbox']]) {
      expect(codexPresetArgs(user)).toEqual(all.slice(2));
    }
    expect(codexPresetArgs(['--skip-git-repo-check'])).toEqual(all.slice(0, -1));
  });
});

describe('what of a long output is kept for the parser', () => {
  it('keeps the head and the tail in whole lines, so thread.started and the result both survive', () => {
    const lines = ['{"type":"thread.started","thread_id":"t-1"}', ...Array.from({ length: 50 }, (_, i) => `{"type":"item.completed","n":${i}}`), '{"type":"turn.completed","usage":{"input_tokens":9,"output_tokens":2}}'];
    const text = lines.join('\n') + '\n';
    for (const chunk of [7, 13, 64, 1000]) {
      const kept = new HeadTail(120, 300);
      for (let i = 0; i < text.length; i += chunk) kept.push(text.slice(i, i + chunk));
      const out = kept.text();
      expect(out.length).toBeLessThanOrEqual(420);
      for (const line of out.split('\n').filter(Boolean)) expect(lines).toContain(line);
      expect(parseCodexOutput(out)).toMatchObject({ session_id: 't-1', ok: true, tokens: { uncached_input: 9, output: 2 } });
    }
    const small = new HeadTail(120, 300);
    small.push('a\nb');
    expect(small.text()).toBe('a\nb');
  });
});
