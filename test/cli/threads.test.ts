import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { runRecords, script, setRunner, startWatch, until } from '../helpers/watch.js';

/**
 * Work threads driven by a `command` runner: a child script that logs every request it gets on stdin
 * and follows a plan keyed by the command's objective (answer, raw text, files to write, hold until
 * released). The home is in a real git checkout, so the scope check sees real changes.
 */
const CHILD = `
const fs = require('node:fs');
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => {
  const req = JSON.parse(input);
  fs.appendFileSync('child.log', JSON.stringify(req) + '\\n');
  const plan = JSON.parse(fs.readFileSync('plan.json', 'utf8'));
  if (req.op === 'compact') {
    console.log(JSON.stringify({ checkpoint: 'child checkpoint: ' + req.history.map((c) => c.objective).join(' | '), usage: { uncached_input: 7, cache_read: 0, cache_write: 0, output: 5 } }));
    return;
  }
  const step = plan[req.command.objective] || {};
  for (const f of step.write || []) { fs.mkdirSync(require('node:path').dirname(f), { recursive: true }); fs.appendFileSync(f, 'changed\\n'); }
  const answer = () => {
    if (step.raw !== undefined) return process.stdout.write(step.raw);
    const result = step.answer || { status: 'completed', summary: 'done: ' + req.command.objective, files_changed: step.write || [], ready_for_next: true };
    console.log(JSON.stringify({ ...result, usage: step.usage || { uncached_input: 100, cache_read: 50, cache_write: 10, output: 20 } }));
  };
  if (!step.hold) return answer();
  fs.writeFileSync('held', String(process.pid));
  const t = setInterval(() => { if (fs.existsSync('release')) { clearInterval(t); answer(); } }, 20);
});
`;

async function threadProject(plan: Record<string, unknown> = {}) {
  const p = await project('main');
  const git = (...a: string[]) => execFileSync('git', a, { cwd: p.dir, stdio: 'ignore' });
  git('init', '-q');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'test');
  mkdirSync(join(p.dir, 'src/grid'), { recursive: true });
  writeFileSync(join(p.dir, 'src/grid/contract.ts'), 'export const grid = 1;\n');
  writeFileSync(join(p.dir, 'README.md'), '# demo\n');
  writeFileSync(join(p.dir, 'child.cjs'), CHILD);
  writeFileSync(join(p.dir, '.gitignore'), 'child.log\nplan.json\nheld\nrelease\n.holon/local/\n');
  git('add', '-A');
  git('commit', '-qm', 'init');
  const setPlan = (x: Record<string, unknown>) => writeFileSync(join(p.dir, 'plan.json'), JSON.stringify(x));
  setPlan(plan);
  const requests = () => (existsSync(join(p.dir, 'child.log')) ? readFileSync(join(p.dir, 'child.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : []);
  const create = async (...extra: string[]) => (await p.json(['thread', 'create', '--role', 'grid contract specialist', '--command', 'node child.cjs', ...extra])).id as string;
  const send = async (id: string, objective: string, ...extra: string[]) => p.json(['thread', 'send', id, '--objective', objective, '--wait', ...extra]);
  const inspect = (id: string) => p.json(['thread', 'inspect', id]);
  return { ...p, setPlan, requests, create, send, inspect, git };
}

describe('thread lifecycle with a command runner', () => {
  it('creates a thread with a stable id and its policy, and lists it', async () => {
    const p = await threadProject();
    const id = await p.create('--scope', 'src/grid/**', '--tool', 'Read', '--model', 'm-1', '--context-policy', 'summaries');
    expect(id).toMatch(/^th-[0-9a-z]{8}$/);
    const t = await p.inspect(id);
    expect(t).toMatchObject({ id, agent: 'main', state: 'idle', role: 'grid contract specialist', session: 1, active_command: null, last_result: null, checkpoint: null });
    expect(t.policy).toEqual({ runner: 'command', command: 'node child.cjs', model: 'm-1', tools: ['Read'], scope: ['src/grid/**'], context_policy: 'summaries' });
    expect(existsSync(join(p.home, 'agents/main/threads', id, 'thread.yaml'))).toBe(true);
    // The record is stable: inspecting by a prefix names the same thread.
    expect((await p.inspect(id.slice(0, 6))).id).toBe(id);
    expect((await p.json(['thread', 'list'])).threads.map((x: any) => x.id)).toEqual([id]);
    const bad = await p.h(['thread', 'create', '--role', 'x', '--runner', 'command']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('--runner command needs --command');
    expect((await p.h(['thread', 'create', '--role', 'x', '--command', 'c', '--scope', '/etc/**'])).code).toBe(3);
    expect((await p.h(['thread', 'inspect', 'th-nope'])).code).toBe(4);
  });

  it('sends bounded commands, gets structured results, and the second carries the first in its context', async () => {
    const p = await threadProject();
    const id = await p.create('--scope', 'src/grid/**');
    const one = await p.send(id, 'report the invariants', '--expect', 'a list', '--constraint', 'read only');
    expect(one.command).toMatchObject({ seq: 1, status: 'finished', result: { status: 'completed', summary: 'done: report the invariants', ready_for_next: true }, result_errors: [] });
    expect(one.command.id).toMatch(/^c-[0-9a-z]{8}$/);
    const two = await p.send(id, 'add the three fields', '--scope', 'src/grid/contract.ts');
    expect(two.command.seq).toBe(2);
    const [r1, r2] = p.requests();
    expect(r1).toMatchObject({ op: 'command', thread: { id, role: 'grid contract specialist' }, command: { objective: 'report the invariants', constraints: ['read only'], expected_result: 'a list', scope: ['src/grid/**'] }, history: [] });
    expect(r1.instructions).toContain('Do only this command');
    expect(r1.result_schema.required).toEqual(['status', 'summary', 'ready_for_next']);
    // The thread is resumed with what it did before: no reconstruction by the parent.
    expect(r2.command.scope).toEqual(['src/grid/contract.ts']);
    expect(r2.history).toEqual([expect.objectContaining({ id: one.command.id, objective: 'report the invariants', result: expect.objectContaining({ summary: 'done: report the invariants' }) })]);
    // The child stops after the current command: it is told of this command only, never of a backlog.
    expect(JSON.stringify(r1)).not.toContain('add the three fields');
    const t = await p.inspect(id);
    expect(t.state).toBe('idle');
    expect(t.last_result).toMatchObject({ command: two.command.id, status: 'finished', result: { status: 'completed' } });
    expect(t.tokens.commands).toEqual({ uncached_input: 200, cache_read: 100, cache_write: 20, output: 40, reasoning: 0 });
    expect(t.commands.map((c: any) => c.usage)).toEqual([{ uncached_input: 100, cache_read: 50, cache_write: 10, output: 20, reasoning: 0 }, { uncached_input: 100, cache_read: 50, cache_write: 10, output: 20, reasoning: 0 }]);
    // One file per command, with the command, its result and its usage.
    const files = readdirSync(join(p.home, 'agents/main/threads', id, 'commands')).sort();
    expect(files).toEqual([`${one.command.id}.yaml`, `${two.command.id}.yaml`].sort());
    const text = readFileSync(join(p.home, 'agents/main/threads', id, 'commands', `${one.command.id}.yaml`), 'utf8');
    expect(text).toContain('objective: "report the invariants"');
    expect(text).toContain('summary: "done: report the invariants"');
    expect(text).toContain('uncached_input: 100');
    // A command may narrow the thread's scope, never widen it.
    const wide = await p.h(['thread', 'send', id, '--objective', 'x', '--scope', 'docs/**']);
    expect(wide.code).toBe(3);
    expect(wide.stderr).toContain('outside thread');
  });

  it('refuses a second command while one runs (exit 5, naming it), with no queue', async () => {
    const p = await threadProject({ slow: { hold: true } });
    const id = await p.create();
    const first = await p.json(['thread', 'send', id, '--objective', 'slow']);
    await until(() => existsSync(join(p.dir, 'held')), 30_000, 'the child to start');
    expect((await p.inspect(id))).toMatchObject({ state: 'running', active_command: { id: first.command.id } });
    const second = await p.h(['thread', 'send', id, '--objective', 'other']);
    expect(second.code).toBe(5);
    expect(second.stderr).toContain(`running command ${first.command.id}`);
    const compact = await p.h(['thread', 'compact', id, '--checkpoint', 'x']);
    expect(compact.code).toBe(5);
    writeFileSync(join(p.dir, 'release'), '');
    const done = await until(async () => ((await p.inspect(id)).state === 'idle' ? p.inspect(id) : null), 30_000, 'the command to end');
    expect(done.commands.map((c: any) => c.objective)).toEqual(['slow']);
    expect(p.requests()).toHaveLength(1);
  });

  it('records an answer that does not validate as failed, with why and the raw text', async () => {
    const p = await threadProject({
      prose: { raw: 'I looked around and everything is fine.' },
      wrong: { answer: { status: 'done', summary: '', ready_for_next: 'yes', extra: 1 } },
      stuck: { answer: { status: 'blocked', summary: 'cannot pick the field names', blocker: 'which names: a/b/c or x/y/z?', ready_for_next: false } },
    });
    const id = await p.create();
    const r = await p.h(['thread', 'send', id, '--objective', 'prose', '--wait', '--json']);
    expect(r.code).toBe(3);
    const c = JSON.parse(r.stdout).command;
    expect(c.result).toMatchObject({ status: 'failed', ready_for_next: false });
    expect(c.result.summary).toContain('not JSON');
    expect(c.raw_output).toBe('I looked around and everything is fine.');
    const w = JSON.parse((await p.h(['thread', 'send', id, '--objective', 'wrong', '--wait', '--json'])).stdout).command;
    expect(w.result.status).toBe('failed');
    expect(w.result_errors).toEqual(expect.arrayContaining([expect.stringContaining('"done" is not one of'), expect.stringContaining('$.summary: must not be empty'), expect.stringContaining('$.ready_for_next: expected boolean'), expect.stringContaining('unknown field "extra"')]));
    expect(JSON.parse(w.raw_output)).toMatchObject({ status: 'done' });
    // A failed result leaves the thread usable.
    expect((await p.inspect(id)).state).toBe('idle');
    // A blocked result blocks the thread until the parent sends the next command.
    await p.send(id, 'stuck');
    expect(await p.inspect(id)).toMatchObject({ state: 'blocked', last_result: { result: { status: 'blocked', blocker: 'which names: a/b/c or x/y/z?' } } });
    await p.send(id, 'use a/b/c');
    expect((await p.inspect(id)).state).toBe('idle');
  });

  it('checks files_changed against the write scope with git and reports a change outside it', async () => {
    const p = await threadProject({
      inside: { write: ['src/grid/contract.ts'] },
      outside: { write: ['src/grid/contract.ts', 'README.md'], answer: { status: 'completed', summary: 'changed the contract', files_changed: ['./src/grid/contract.ts'], ready_for_next: true } },
      claims: { answer: { status: 'completed', summary: 'says it changed docs', files_changed: ['docs/guide.md'], ready_for_next: true } },
    });
    const id = await p.create('--scope', 'src/grid/**');
    const ok = await p.send(id, 'inside');
    expect(ok.command.scope_check).toEqual({ checked: true, reason: null, changed: ['src/grid/contract.ts'], outside_scope: [], unreported: [] });
    p.git('commit', '-qam', 'step');
    const bad = await p.send(id, 'outside');
    expect(bad.command.scope_check).toMatchObject({ checked: true, changed: ['README.md', 'src/grid/contract.ts'], outside_scope: ['README.md'], unreported: ['README.md'] });
    const text = await p.h(['thread', 'inspect', id]);
    expect(text.stdout).toContain('OUTSIDE SCOPE (git): README.md');
    // The home's own records (the thread files) are never counted as the child's changes.
    expect(bad.command.scope_check.changed.some((f: string) => f.startsWith('.holon/'))).toBe(false);
    // A change the child claims outside the scope is reported even when git sees none.
    p.git('commit', '-qam', 'step 2');
    const claims = await p.send(id, 'claims');
    expect(claims.command.scope_check).toMatchObject({ checked: true, changed: [], outside_scope: ['docs/guide.md'], unreported: [] });
  });

  it('compacts into a durable checkpoint and resumes from it in a fresh session, policy unchanged', async () => {
    const p = await threadProject();
    const id = await p.create('--scope', 'src/grid/**', '--tool', 'Read');
    await p.send(id, 'first');
    await p.send(id, 'second');
    const c1 = await p.json(['thread', 'compact', id]);
    expect(c1.thread).toMatchObject({ state: 'compacted', session: 2, checkpoint: 'ck-1', session_id: null });
    expect(c1.checkpoint).toMatchObject({ id: 'ck-1', written_by: 'child', text: 'child checkpoint: first | second', usage: { uncached_input: 7, output: 5 } });
    expect(p.requests()[2]).toMatchObject({ op: 'compact', history: [expect.objectContaining({ objective: 'first' }), expect.objectContaining({ objective: 'second' })] });
    await p.send(id, 'third');
    const third = p.requests()[3];
    expect(third.thread).toMatchObject({ session: 2, checkpoint: 'child checkpoint: first | second' });
    expect(third.history).toEqual([]);
    await p.json(['thread', 'compact', id, '--checkpoint', 'parent says: grid has four invariants']);
    await p.send(id, 'fourth');
    const fourth = p.requests()[4];
    expect(fourth.thread).toMatchObject({ session: 3, checkpoint: 'parent says: grid has four invariants' });
    // The policy rides along every resume and every compaction.
    const policies = p.requests().filter((r) => r.op === 'command').map((r) => r.thread.policy);
    expect(policies).toHaveLength(4);
    for (const pol of policies) expect(pol).toEqual({ runner: 'command', command: 'node child.cjs', model: null, tools: ['Read'], scope: ['src/grid/**'], context_policy: 'full' });
    const t = await p.inspect(id);
    expect(t).toMatchObject({ compactions: 2, checkpoint: { id: 'ck-2', written_by: 'parent' } });
    expect(t.tokens.checkpoints).toEqual({ uncached_input: 7, cache_read: 0, cache_write: 0, output: 5, reasoning: 0 });
    expect(t.tokens.total.uncached_input).toBe(407);
    expect(readdirSync(join(p.home, 'agents/main/threads', id, 'checkpoints')).sort()).toEqual(['ck-1.yaml', 'ck-2.yaml']);
  });

  it('closes a thread for good: sends refused, nothing deleted', async () => {
    const p = await threadProject();
    const id = await p.create();
    await p.send(id, 'only');
    const closed = await p.json(['thread', 'close', id, '--reason', 'work merged']);
    expect(closed).toMatchObject({ changed: true, thread: { state: 'closed', close_reason: 'work merged' } });
    const again = await p.h(['thread', 'send', id, '--objective', 'more']);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('is closed');
    expect((await p.h(['thread', 'compact', id, '--checkpoint', 'x'])).code).toBe(3);
    expect((await p.json(['thread', 'close', id])).changed).toBe(false);
    expect((await p.inspect(id)).commands).toHaveLength(1);
    expect((await p.json(['thread', 'list'])).threads).toEqual([]);
    expect((await p.json(['thread', 'list', '--all'])).threads.map((x: any) => x.id)).toEqual([id]);
    // `holon check` reads thread records too: a merge left half done is named with its file and line.
    expect((await p.h(['check'])).code).toBe(0);
    const cmdFile = join(p.home, 'agents/main/threads', id, 'commands', readdirSync(join(p.home, 'agents/main/threads', id, 'commands'))[0]);
    writeFileSync(cmdFile, readFileSync(cmdFile, 'utf8') + '<<<<<<< HEAD\nx: 1\n=======\nx: 2\n>>>>>>> other\n');
    const check = await p.h(['check']);
    expect(check.code).toBe(3);
    expect(check.stdout + check.stderr).toMatch(/commands\/c-[0-9a-z]+\.yaml:\d+: git conflict marker/);
  });

  it('a restart while a command ran marks it interrupted, without running it again', async () => {
    const p = await threadProject({ slow: { hold: true } });
    const id = await p.create();
    const sent = await p.json(['thread', 'send', id, '--objective', 'slow']);
    await until(() => existsSync(join(p.dir, 'held')), 30_000, 'the child to start');
    const rt = JSON.parse(readFileSync(join(p.home, 'local/threads', `${sent.command.id}.json`), 'utf8'));
    expect(rt.supervisor_pid).toBeGreaterThan(0);
    process.kill(-rt.supervisor_pid, 'SIGKILL');
    const tick = await until(async () => {
      const r = await p.json(['tick']);
      return r.thread_commands_interrupted.length ? r : null;
    }, 30_000, 'the tick to see the dead supervisor');
    expect(tick.thread_commands_interrupted).toEqual([{ thread: id, command: sent.command.id, agent: 'main' }]);
    const t = await p.inspect(id);
    expect(t.state).toBe('idle');
    expect(t.last_result).toMatchObject({ command: sent.command.id, status: 'interrupted', result: { status: 'failed' } });
    expect((await p.json(['tick'])).thread_commands_interrupted).toEqual([]);
    await p.send(id, 'after');
    expect(p.requests().map((r) => r.command.objective)).toEqual(['slow', 'after']);
  });
});

describe('the parent is woken, not polling', () => {
  it('wait --for thread:ID parks an item; the finished command triggers it with the result', async () => {
    const p = await threadProject({ slow: { hold: true } });
    const item = (await p.h(['new', 'Integrate the grid change'])).stdout.trim();
    const id = await p.create('--work', item);
    const sent = await p.json(['thread', 'send', id, '--objective', 'slow']);
    const w = await p.json(['wait', item, '--for', `thread:${id}`, '--reason', 'grid thread reports']);
    expect(w).toMatchObject({ registered: true, wait: { kind: 'thread', resource: id, status: 'active' } });
    writeFileSync(join(p.dir, 'release'), '');
    const tick = await until(async () => {
      const r = await p.json(['tick']);
      return r.events_admitted.length ? r : null;
    }, 30_000, 'the result event');
    expect(tick.events_admitted).toEqual([expect.objectContaining({ source: 'thread', resource: `thread:${id}`, triggered: [{ work_item: item, wait: w.wait.id }] })]);
    expect(tick.wakes).toEqual([expect.objectContaining({ agent: 'main', work_item: item, reason: 'wait_triggered' })]);
    const resume = await p.h(['resume', item]);
    expect(resume.stdout).toContain(`command 1 (${sent.command.id}) finished: completed`);
    expect(resume.stdout).toContain('summary: done: slow');
    // Waiting on a command that has ended returns its result at once and registers nothing.
    const late = await p.json(['wait', item, '--for', `thread:${sent.command.id}`, '--reason', 'again']);
    expect(late).toMatchObject({ registered: false, result: { command: sent.command.id, status: 'finished', result: { status: 'completed' } } });
    expect((await p.h(['wait', item, '--for', 'thread:nope', '--reason', 'x'])).code).toBe(3);
  });

  it('holon watch resumes the parked parent with the command\'s result in its prompt', async () => {
    const p = await threadProject({ slow: { hold: true } });
    script(join(p.dir, 'parent.sh'), '#!/bin/sh\ncat > "$PWD/parent-prompt.txt"\nholon progress "$HOLON_WORK_ITEM" "read the thread result"\n');
    setRunner(p.home, 'main', '{preset: command, command: ./parent.sh}');
    const item = (await p.h(['new', 'Integrate the grid change'])).stdout.trim();
    const id = await p.create();
    await p.json(['thread', 'send', id, '--objective', 'slow']);
    await p.json(['wait', item, '--for', `thread:${id}`, '--reason', 'grid thread reports']);
    const w = startWatch(p.dir);
    try {
      await w.waitFor(/watching /);
      writeFileSync(join(p.dir, 'release'), '');
      await until(() => runRecords(p.home).some((r) => r.status === 'ok'), 30_000, 'the parent run');
    } finally {
      await w.stop();
    }
    const [run] = runRecords(p.home);
    expect(run).toMatchObject({ work_item: item, reason: 'wait_triggered' });
    const prompt = readFileSync(join(p.dir, 'parent-prompt.txt'), 'utf8');
    expect(prompt).toContain(`thread ${id} command 1`);
    expect(prompt).toContain('summary: done: slow');
  });
});
