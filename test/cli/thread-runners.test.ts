import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { script } from '../helpers/watch.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/runners');

/**
 * Fake `claude` and `codex` first on PATH: they log argv, start a new session (sess-N / thread-N)
 * unless resumed, and print output shaped like the real CLIs' (from the recorded fixtures). With the
 * structured-output option they answer a CommandResult (`structured_output` for claude, the final
 * agent message for codex); without it (a compaction) they answer a checkpoint text.
 * FAKE_MODE=prose makes the answer plain text; FAKE_MODE=error makes the run fail.
 */
function fakeBin(dir: string) {
  const bin = join(dir, 'fakebin');
  mkdirSync(bin, { recursive: true });
  const common = `
const fs = require('node:fs');
const argv = process.argv.slice(2);
// The presets give the prompt on stdin (\`claude -p\` with no prompt argument, \`codex exec -\`).
const prompt = (() => { try { return fs.readFileSync(0, 'utf8'); } catch { return ''; } })();
fs.appendFileSync(process.env.FAKE_LOG, JSON.stringify({ argv, cwd: process.cwd(), prompt }) + '\\n');
const counter = process.env.FAKE_LOG + '.n';
const fresh = () => { const n = (fs.existsSync(counter) ? Number(fs.readFileSync(counter, 'utf8')) : 0) + 1; fs.writeFileSync(counter, String(n)); return n; };
const objective = (prompt.match(/Objective: (.*)/) || [])[1] || '';
const answer = { status: 'completed', summary: 'did: ' + objective, files_read: ['src/grid/contract.ts'], files_changed: [], validation: ['typecheck passes'], discoveries: [], blocker: null, ready_for_next: true };
`;
  script(join(bin, 'claude'), `#!/usr/bin/env node
${common}
const out = JSON.parse(fs.readFileSync(${JSON.stringify(join(FIXTURES, 'claude-success.json'))}, 'utf8'));
const i = argv.indexOf('--resume');
out.session_id = i >= 0 ? argv[i + 1] : 'sess-' + fresh();
const p = prompt;
if (process.env.FAKE_MODE === 'error') { out.subtype = 'error_during_execution'; out.is_error = true; out.result = 'API Error: 529 overloaded'; }
else if (argv.includes('--json-schema') && process.env.FAKE_MODE !== 'prose') { out.structured_output = { ...answer, summary: 'did: ' + ((p.match(/Objective: (.*)/) || [])[1] || '') }; out.result = JSON.stringify(out.structured_output); }
else out.result = argv.includes('--json-schema') ? 'All good, nothing to report.' : 'checkpoint: the grid contract has four invariants';
process.stdout.write(JSON.stringify(out));
`);
  script(join(bin, 'codex'), `#!/usr/bin/env node
${common}
const i = argv.indexOf('resume');
const id = i >= 0 ? argv[i + 1] : 'thread-' + fresh();
let text = argv.includes('--output-schema') ? (process.env.FAKE_MODE === 'prose' ? 'All good.' : JSON.stringify(answer)) : 'checkpoint: the grid contract has four invariants';
if (argv.includes('--output-schema')) JSON.parse(fs.readFileSync(argv[argv.indexOf('--output-schema') + 1], 'utf8'));
let out = fs.readFileSync(${JSON.stringify(join(FIXTURES, 'codex-success.jsonl'))}, 'utf8').replace('019a2d7a-41c4-78b1-b7cc-a45d62a89cd5', id);
out = out.replace('"Recorded progress; waiting for the author\\'s revision."', JSON.stringify(text));
if (process.env.FAKE_MODE === 'error') out = fs.readFileSync(${JSON.stringify(join(FIXTURES, 'codex-failed.jsonl'))}, 'utf8');
process.stdout.write(out);
`);
  return bin;
}

async function setup(runner: 'claude' | 'codex') {
  const p = await project('main');
  const bin = fakeBin(p.dir);
  const log = join(p.dir, 'fake.log');
  const env = { PATH: `${bin}:${process.env.PATH}`, FAKE_LOG: log };
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l).argv as string[]) : []);
  /** The prompts the fakes read on stdin, one per call. */
  const prompts = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l).prompt as string) : []);
  const id = (await p.json(['thread', 'create', '--role', 'grid contract specialist', '--runner', runner, '--model', 'model-x', '--tool', 'Read', '--scope', 'src/grid/**'], env)).id as string;
  const send = async (objective: string, extra: NodeJS.ProcessEnv = {}) => {
    const r = await p.h(['thread', 'send', id, '--objective', objective, '--wait', '--json'], { ...env, ...extra });
    return { code: r.code, command: r.stdout ? JSON.parse(r.stdout).command : null, stderr: r.stderr };
  };
  return { ...p, env, calls, prompts, id, send };
}


describe.each([
  ['claude', 'sess', { uncached_input: 42, cache_read: 51290, cache_write: 6125, output: 1187 }],
  ['codex', 'thread', { uncached_input: 315, cache_read: 24448, cache_write: 0, output: 122 }],
] as const)('%s thread runner', (runner, prefix, tokens) => {
  it('resumes one session across commands, compacts into a fresh one, keeps the policy, then closes', async () => {
    const p = await setup(runner);
    const one = await p.send('report the invariants');
    expect(one.code).toBe(0);
    expect(one.command).toMatchObject({ status: 'finished', session_id: `${prefix}-1`, resumed_session: null, usage: tokens, result: { status: 'completed', summary: 'did: report the invariants', validation: ['typecheck passes'] } });
    const two = await p.send('add the three fields');
    expect(two.command).toMatchObject({ session_id: `${prefix}-1`, resumed_session: `${prefix}-1`, result: { summary: 'did: add the three fields' } });
    const compact = await p.json(['thread', 'compact', p.id], p.env);
    expect(compact.checkpoint).toMatchObject({ written_by: 'child', text: 'checkpoint: the grid contract has four invariants' });
    expect(compact.thread).toMatchObject({ state: 'compacted', session_id: null, session: 2 });
    // A fresh session has nothing to sum up: the child is not asked, the parent must write it.
    const empty = await p.h(['thread', 'compact', p.id], p.env);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain('--checkpoint');
    const three = await p.send('add focused tests');
    expect(three.command).toMatchObject({ session_id: `${prefix}-2`, resumed_session: null, result: { status: 'completed' } });
    const [c1, c2, ck, c3] = p.calls();
    if (runner === 'claude') {
      // The preset's flags first (the prompt is on stdin), then the thread's.
      expect(c1.slice(0, 4)).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
      expect(c1).not.toContain('--resume');
      const schema = JSON.parse(c1[c1.indexOf('--json-schema') + 1]);
      expect(schema.required).toEqual(['status', 'summary', 'files_read', 'files_changed', 'validation', 'discoveries', 'blocker', 'ready_for_next']);
      expect(c1.slice(c1.indexOf('--permission-mode'))).toEqual(['--permission-mode', 'acceptEdits', '--model', 'model-x', '--allowedTools', 'Read']);
      expect(c2.slice(c2.indexOf('--resume'), c2.indexOf('--resume') + 2)).toEqual(['--resume', 'sess-1']);
      expect(ck).toContain('--resume');
      expect(ck).not.toContain('--json-schema');
      expect(c3).not.toContain('--resume');
      expect(c3.slice(c3.indexOf('--model'))).toEqual(['--model', 'model-x', '--allowedTools', 'Read']);
    } else {
      // The preset's flags (its sandbox is the thread's workspace-write, given once), the thread's, the prompt on stdin.
      expect(c1.slice(0, 4)).toEqual(['exec', '--json', '--sandbox', 'workspace-write']);
      expect(c1.filter((a) => a === '--sandbox' || a === '-s')).toHaveLength(1);
      expect(c1).toContain('--output-schema');
      expect(c1.slice(c1.indexOf('-m'))).toEqual(['-m', 'model-x', '-']);
      expect(c1).not.toContain('resume');
      expect(c2.slice(c2.indexOf('resume'))).toEqual(['resume', 'thread-1', '-']);
      expect(ck.slice(0, 2)).toEqual(['exec', '--json']);
      expect(ck).toContain('resume');
      expect(ck).not.toContain('--output-schema');
      expect(c3).not.toContain('resume');
      expect(c3.slice(c3.indexOf('-m'))).toEqual(['-m', 'model-x', '-']);
      expect(c3.slice(0, 4)).toEqual(['exec', '--json', '--sandbox', 'workspace-write']);
    }
    const first = p.prompts()[0];
    expect(first).toContain('Your role: grid contract specialist');
    expect(first).toContain('Do only this command');
    expect(first).toContain('write scope: src/grid/**');
    expect(first).not.toContain('add the three fields');
    // After compaction the fresh session starts from the checkpoint, role and policy.
    const fresh = p.prompts()[3];
    expect(fresh).toContain('checkpoint: the grid contract has four invariants');
    expect(fresh).toContain('Your role: grid contract specialist');
    expect(fresh).toContain('model model-x');
    const t = await p.json(['thread', 'inspect', p.id]);
    expect(t.tokens.commands.cache_read).toBe(tokens.cache_read * 3);
    await p.json(['thread', 'close', p.id]);
    const after = await p.send('one more');
    expect(after.code).toBe(3);
    expect(p.calls()).toHaveLength(4);
  });

  it('records a prose answer and a failed run as failed, keeping the raw text', async () => {
    const p = await setup(runner);
    const prose = await p.send('check it', { FAKE_MODE: 'prose' });
    expect(prose.code).toBe(3);
    expect(prose.command.result).toMatchObject({ status: 'failed', ready_for_next: false });
    expect(prose.command.raw_output).toMatch(/All good/);
    const failed = await p.send('check it again', { FAKE_MODE: 'error' });
    expect(failed.command.result.status).toBe('failed');
    expect(failed.command.result_errors[0]).toMatch(runner === 'claude' ? /529 overloaded/ : /stream disconnected/);
    expect((await p.json(['thread', 'inspect', p.id])).state).toBe('idle');
  });
});

describe('context policy none with a session runner', () => {
  it('starts a fresh claude session for every command', async () => {
    const p = await project('main');
    const bin = fakeBin(p.dir);
    const log = join(p.dir, 'fake.log');
    const env = { PATH: `${bin}:${process.env.PATH}`, FAKE_LOG: log };
    const id = (await p.json(['thread', 'create', '--role', 'reviewer', '--runner', 'claude', '--context-policy', 'none'], env)).id;
    const a = await p.json(['thread', 'send', id, '--objective', 'one', '--wait'], env);
    const b = await p.json(['thread', 'send', id, '--objective', 'two', '--wait'], env);
    expect([a.command.session_id, b.command.session_id]).toEqual(['sess-1', 'sess-2']);
    const calls = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l).argv as string[]);
    expect(calls.map((c) => c.includes('--resume'))).toEqual([false, false]);
  });
});
