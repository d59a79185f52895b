import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { script } from '../helpers/watch.js';
import { validator } from '../helpers/json-schema.js';

const validate = validator(join(import.meta.dirname, '../../schemas'));

/** Review fixes to budgets (issue 17): the frontier cache, a run in flight, malformed budgets, deferred items. */

type Project = Awaited<ReturnType<typeof project>>;
const FIXTURE = join(import.meta.dirname, '../fixtures/runners/claude-success.json');
const at = (iso: string) => ({ HOLON_NOW: iso });

/** A run record as the watcher writes it, for `work` (by agent main). */
function writeRun(p: Project, id: string, work: string, started: string, ended: string | null, extra: Record<string, unknown> = {}): void {
  mkdirSync(join(p.home, 'local/runs'), { recursive: true });
  writeFileSync(join(p.home, 'local/runs', `${id}.json`), JSON.stringify({
    id, agent: 'main', work_item: work, reason: 'operator_message', reasons: ['operator_message'], wakes: [], runner: 'command', watcher_pid: 1, pid: null,
    started_at: started, ended_at: ended, duration_ms: null, status: ended ? 'ok' : 'running', exit_code: ended ? 0 : null, signal: null, error: null,
    session_id: null, resumed_session: null, tokens: null, cost_usd: null, revision_before: null, revision_after: null, progress: null, blocked: false, resumed_by: null, ...extra,
  }));
}

const codeOf = async (p: Project, id: string, env: NodeJS.ProcessEnv = {}) => {
  const f = await p.json(['frontier'], env);
  if (f.runnable.some((e: any) => e.id === id)) return 'runnable';
  for (const ch of ['not_runnable', 'waiting', 'resume_candidates']) {
    const e = f[ch].find((x: any) => x.id === id);
    if (e) return e.code;
  }
  return 'absent';
};

describe('budgets and the frontier result cache', () => {
  it('a thread command counts at once: the cached frontier does not keep an item runnable whose budget a command spent', async () => {
    const p = await project();
    script(join(p.dir, 'fake-claude'), `#!/bin/sh\ncat >/dev/null\ncat ${JSON.stringify(FIXTURE)}\n`);
    const id = await p.create('x', ['--budget', 'tokens=5000']);
    const th = (await p.json(['thread', 'create', '--role', 'x', '--runner', 'claude', '--command', './fake-claude', '--work', id])).id;
    expect(await codeOf(p, id)).toBe('runnable');
    expect(await codeOf(p, id)).toBe('runnable'); // from the cache
    await p.h(['thread', 'send', th, '--objective', 'go', '--wait']);
    expect(readFileSync(join(p.home, 'agents/main/threads', th, 'thread.yaml'), 'utf8')).toContain(id);
    expect(await codeOf(p, id)).toBe('budget_exhausted');
  });

  it('a thread command sent after a reopen, in its second, counts: its exact send tells it from the spending before', async () => {
    const p = await project();
    script(join(p.dir, 'fake-claude'), `#!/bin/sh\ncat >/dev/null\ncat ${JSON.stringify(FIXTURE)}\n`);
    const id = await p.create('x', ['--budget', 'tokens=5000'], at('2026-12-01T10:00:00Z'));
    const th = (await p.json(['thread', 'create', '--role', 'x', '--runner', 'claude', '--command', './fake-claude', '--work', id], at('2026-12-01T10:00:00Z'))).id;
    expect((await p.h(['block', id, '--reason', 'budget_exhausted: tokens 5k of 5k spent, 0 left', '--recovery', 'raise it'], at('2026-12-01T10:00:05Z'))).code).toBe(0);
    expect((await p.h(['reopen', id], at('2026-12-01T10:00:05.200Z'))).code).toBe(0);
    // The recorded answer is not a command result (exit 3), but its usage is spent all the same.
    const sent = JSON.parse((await p.h(['thread', 'send', th, '--objective', 'go', '--wait', '--json'], at('2026-12-01T10:00:05.600Z'))).stdout);
    expect(sent.command).toMatchObject({ sent_at: '2026-12-01T10:00:05Z', sent_ms: Date.parse('2026-12-01T10:00:05.600Z') });
    expect(validate('thread-send.json', sent)).toEqual([]);
    // The command ran on the real clock; as on a fast machine, it ends in the second it was sent.
    const file = join(p.home, 'agents/main/threads', th, 'commands', `${sent.command.id}.yaml`);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^ended_at: .*$/m, 'ended_at: "2026-12-01T10:00:05Z"'));
    expect((await p.json(['show', id], at('2026-12-01T10:00:06Z'))).budget.spent.tokens).toBe(42 + 6125 + 1187);
    expect(await codeOf(p, id, at('2026-12-01T10:00:06Z'))).toBe('budget_exhausted');
  });

  it.each([
    ['an item budget', ['--budget', 'time=1m'], ''],
    ['a daily budget', [], 'budget:\n  daily: "time=1m"\n'],
  ])('a run in flight spends time: %s runs out at its start + what was left, cached or not', async (_name, flags, yaml) => {
    const p = await project();
    if (yaml) writeFileSync(join(p.home, 'holon.yaml'), readFileSync(join(p.home, 'holon.yaml'), 'utf8') + yaml);
    const id = await p.create('x', flags, at('2026-12-01T10:00:00Z'));
    writeRun(p, 'r-aaaa1111', id, '2026-12-01T10:00:05Z', null);
    expect(await codeOf(p, id, at('2026-12-01T10:00:10Z'))).toBe('runnable');
    expect(await codeOf(p, id, at('2026-12-01T10:01:04Z'))).toBe('runnable');
    expect(await codeOf(p, id, at('2026-12-01T10:01:05Z'))).toBe('budget_exhausted');
    expect(await codeOf(p, id, at('2026-12-01T10:05:00Z'))).toBe('budget_exhausted');
  });

  it('a run and a reopen in the same second: the run that spent the budget does not count again after the reopen', async () => {
    const p = await project();
    const id = await p.create('x', ['--budget', 'runs=1'], at('2026-12-01T10:00:00Z'));
    writeRun(p, 'r-bbbb2222', id, '2026-12-01T10:00:05Z', '2026-12-01T10:00:05Z');
    expect(await codeOf(p, id, at('2026-12-01T10:00:05Z'))).toBe('budget_exhausted');
    expect((await p.h(['block', id, '--reason', 'budget_exhausted: runs 1 of 1 spent, 0 left', '--recovery', 'raise it'], at('2026-12-01T10:00:05Z'))).code).toBe(0);
    expect((await p.h(['reopen', id], at('2026-12-01T10:00:05Z'))).code).toBe(0);
    expect((await p.json(['show', id], at('2026-12-01T10:00:05Z'))).budget.spent.runs).toBe(0);
    expect(await codeOf(p, id, at('2026-12-01T10:00:05Z'))).toBe('runnable');
    // A run started after the reopen (and still going, or ended later) counts.
    writeRun(p, 'r-cccc3333', id, '2026-12-01T10:00:05Z', '2026-12-01T10:00:09Z');
    expect(await codeOf(p, id, at('2026-12-01T10:00:10Z'))).toBe('budget_exhausted');
  });
});

describe('malformed and deferred budgets', () => {
  const breakBudget = (p: Project, id: string) => writeFileSync(p.workFile(id), readFileSync(p.workFile(id), 'utf8').replace(/^budget: .*$/m, 'budget: "coins=5"'));

  it('the frontier, runs and edit agree on a malformed item budget, and edit --budget repairs it', async () => {
    const p = await project();
    const id = await p.create('x', ['--budget', 'runs=5']);
    breakBudget(p, id);
    const f = await p.json(['frontier']);
    expect(f.not_runnable).toEqual([expect.objectContaining({ id, code: 'budget_invalid', detail: expect.stringContaining('unknown budget figure "coins"') })]);
    const runs = await p.h(['runs', '--work', id, '--json']);
    expect(runs.code, runs.stderr).toBe(0);
    expect(JSON.parse(runs.stdout)).toMatchObject({ budget: null, budget_error: expect.stringContaining('unknown budget figure "coins"') });
    expect(validate('runs.json', JSON.parse(runs.stdout))).toEqual([]);
    const text = await p.h(['runs', '--work', id]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('unknown budget figure "coins"');
    const edit = await p.h(['edit', id, '--budget', 'runs=3']);
    expect(edit.code, edit.stderr).toBe(0);
    expect((await p.json(['show', id])).budget.limits).toEqual({ runs: 3 });
    expect(await codeOf(p, id)).toBe('runnable');
  });

  it("holon runs still lists the runs when the agent's daily budget is malformed, and says what is wrong", async () => {
    const p = await project();
    const id = await p.create('x');
    writeRun(p, 'r-00000001', id, '2026-12-01T10:00:00Z', '2026-12-01T10:00:01Z');
    const agents = join(p.home, 'agents/main/AGENTS.md');
    writeFileSync(agents, readFileSync(agents, 'utf8').replace(/policy:\n/, 'policy:\n  daily_budget: "tokens=lots"\n'));
    const json = await p.h(['runs', '--json'], at('2026-12-01T12:00:00Z'));
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.runs.map((r: any) => r.id)).toEqual(['r-00000001']);
    expect(parsed.totals).toEqual([expect.objectContaining({ agent: 'main', runs: 1, daily_budget_error: expect.stringContaining('policy.daily_budget: tokens=lots is not a limit') })]);
    expect(parsed.totals[0]).not.toHaveProperty('daily_budget');
    expect(validate('runs.json', parsed)).toEqual([]);
    const text = await p.h(['runs'], at('2026-12-01T12:00:00Z'));
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('r-00000001');
    expect(text.stderr).toContain('daily budget of main is unreadable: agents/main/AGENTS.md policy.daily_budget: tokens=lots is not a limit');
    // The frontier refuses it, with the same words.
    const f = await p.h(['frontier'], at('2026-12-01T12:00:00Z'));
    expect(f.code).toBe(3);
    expect(f.stderr).toContain('policy.daily_budget: tokens=lots is not a limit');
  });

  it('a deferred item whose budget is spent says budget_exhausted, not resume_ready', async () => {
    const p = await project();
    const id = await p.create('x', ['--budget', 'runs=1'], at('2026-12-01T10:00:00Z'));
    writeRun(p, 'r-dddd4444', id, '2026-12-01T10:00:05Z', '2026-12-01T10:00:06Z');
    expect((await p.h(['defer', id, '--until', '2026-12-01T11:00:00Z', '--reason', 'later'], at('2026-12-01T10:00:10Z'))).code).toBe(0);
    expect(await codeOf(p, id, at('2026-12-01T12:00:00Z'))).toBe('budget_exhausted');
  });
});
