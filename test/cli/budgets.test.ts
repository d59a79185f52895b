import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { runRecords, script, setRunner } from '../helpers/watch.js';
import { dayWindow } from '../../src/core/budget.js';
import { openHome } from '../../dist/store/home.js';
import { writeRun } from '../../dist/store/runs.js';
import { validator } from '../helpers/json-schema.js';

const validate = validator(join(import.meta.dirname, '../../schemas'));

type Project = Awaited<ReturnType<typeof project>>;

const FIXTURE = join(import.meta.dirname, '../fixtures/runners/claude-success.json');
/** What one run of the fake claude costs: the recorded output's usage (cache reads are not counted). */
const PER_RUN = { tokens: 42 + 6125 + 1187, cache_read: 51290, cost: 0.0873215 };

/**
 * A fake `claude` printing the recorded output of a real one, as a session that grows: each run in
 * the session adds the recorded usage, and total_cost_usd is the session's running total (as Claude's
 * is), so holon's per-run share is the recorded cost. It records progress and keeps each prompt.
 */
function fakeClaude(p: Project): void {
  script(join(p.dir, 'fake-claude'), `#!/usr/bin/env node
const fs = require('node:fs');
fs.appendFileSync('prompts.log', fs.readFileSync(0, 'utf8') + '\\n=====\\n');
require('node:child_process').execFileSync('holon', ['progress', process.env.HOLON_WORK_ITEM, 'step'], { stdio: 'ignore' });
const n = Number(fs.existsSync('count') ? fs.readFileSync('count', 'utf8') : 0) + 1;
fs.writeFileSync('count', String(n));
const out = JSON.parse(fs.readFileSync(${JSON.stringify(FIXTURE)}, 'utf8'));
out.total_cost_usd = Math.round(out.total_cost_usd * n * 1e10) / 1e10;
process.stdout.write(JSON.stringify(out));
`);
  setRunner(p.home, 'rev', '{preset: claude, command: ./fake-claude}');
}

async function once(p: Project, at?: number): Promise<{ runs: any[]; log: string }> {
  const r = await p.h(['watch', '--once', '--json'], at === undefined ? {} : { HOLON_NOW: new Date(at).toISOString() });
  expect(r.code, r.stderr).toBe(0);
  return { runs: JSON.parse(r.stdout).runs, log: r.stderr };
}

const prompts = (p: Project) => readFileSync(join(p.dir, 'prompts.log'), 'utf8').split('\n=====\n').filter(Boolean);

describe.each([
  // [budget, the figure that runs out, runs it allows]
  ['tokens=9000', 'tokens', 2],
  ['cost=0.15usd', 'cost', 2],
  ['runs=2', 'runs', 2],
  ['time=1ms', 'time', 1],
])('an item budget of %s', (budget, figure, allowed) => {
  it(`lets ${allowed} run(s) finish, then refuses the next wake and blocks the item with budget_exhausted (${figure})`, async () => {
    const p = await project('rev');
    fakeClaude(p);
    const id = await p.create('review the docs', ['--budget', budget]);
    for (let i = 0; i < allowed; i++) {
      if (i) expect((await p.h(['tell', '--work', id, `again ${i}`])).code).toBe(0);
      expect((await once(p)).runs.map((r) => r.status)).toEqual(['ok']);
    }
    expect((await p.h(['tell', '--work', id, 'once more'])).code).toBe(0);
    const refused = await once(p);
    expect(refused.runs).toEqual([]);
    expect(refused.log).toMatch(new RegExp(`not running rev on ${id} \\(operator_message\\): budget_exhausted: ${figure} \\S+ of \\S+ spent, \\S+ left; item blocked`));
    expect(runRecords(p.home)).toHaveLength(allowed);
    const shown = await p.json(['show', id]);
    expect(shown.status).toBe('blocked');
    expect(shown.blocker.reason).toMatch(new RegExp(`^budget_exhausted: ${figure} `));
    expect(shown.blocker.recovery).toContain(`holon edit ${id} --budget ${figure}=MORE`);
    expect(shown.blocker.recovery).toContain(`holon reopen ${id}`);
    expect(shown.budget).toMatchObject({ state: 'exhausted', figure, cache_reads_counted: false });
    expect(shown.budget.spent).toMatchObject({ tokens: PER_RUN.tokens * allowed, cache_read: PER_RUN.cache_read * allowed, runs: allowed });
    expect(shown.budget.spent.cost_usd).toBeCloseTo(PER_RUN.cost * allowed, 6);
    const key = { tokens: 'tokens', cost: 'cost_usd', runs: 'runs', time: 'time_ms' }[figure]!;
    expect(shown.budget.left).toEqual({ [key]: 0 });
    expect(validate('show.json', shown)).toEqual([]);
    // The frontier and explain give the exhausted budget its own reason code.
    const front = await p.json(['frontier', '--agent', 'rev']);
    expect(front.not_runnable).toEqual([expect.objectContaining({ id, code: 'budget_exhausted' })]);
    if (figure !== 'tokens') return;
    const why = await p.json(['explain', id, '--agent', 'rev']);
    expect(JSON.stringify(why)).toContain('budget_exhausted');
    // Another wake is still refused: the item stays blocked, no run starts.
    expect((await p.h(['tell', '--work', id, 'and again'])).code).toBe(0);
    expect((await once(p)).runs).toEqual([]);
    expect(runRecords(p.home)).toHaveLength(allowed);
  });
});

describe('budgets', () => {
  it('tells the agent what is left past 80 %, and a reopen grants the budget afresh (it does not re-block at once)', async () => {
    const p = await project('rev');
    fakeClaude(p);
    const id = await p.create('review the docs', ['--budget', 'tokens=9000']);
    expect((await once(p)).runs).toHaveLength(1);
    expect(prompts(p)[0]).not.toContain('## Budget');
    expect((await p.h(['tell', '--work', id, 'again'])).code).toBe(0);
    expect((await once(p)).runs).toHaveLength(1);
    // 7354 of 9000 tokens (82 %) were spent before the second run.
    expect(prompts(p)[1]).toContain(`## Budget\n\nThis item's budget is nearly spent: ${9000 - PER_RUN.tokens} tokens of 9k tokens left`);
    expect((await p.h(['tell', '--work', id, 'more'])).code).toBe(0);
    expect((await once(p)).runs).toHaveLength(0);
    // An agent may not lift its own budget.
    const asAgent = await p.h(['reopen', id], { HOLON_ACTOR: 'agent:rev', HOLON_AGENT: 'rev' });
    expect(asAgent.code).toBe(3);
    expect(asAgent.stderr).toContain('its budget is spent');
    const raise = await p.h(['edit', id, '--budget', 'tokens=1M'], { HOLON_ACTOR: 'agent:rev', HOLON_AGENT: 'rev' });
    expect(raise.code).toBe(3);
    // A person reopens: spending counts from now, so the next wake runs.
    expect((await p.h(['reopen', id])).code).toBe(0);
    const reopened = await p.json(['show', id]);
    expect(reopened).toMatchObject({ status: 'open', budget: { state: 'ok', spent: { tokens: 0, runs: 0 } } });
    expect(reopened.budget.since).toMatch(/^\d{4}-/);
    expect((await p.h(['tell', '--work', id, 'after the reopen'])).code).toBe(0);
    expect((await once(p)).runs.map((r) => r.status)).toEqual(['ok']);
    expect((await p.json(['show', id])).budget.spent.tokens).toBe(PER_RUN.tokens);
    // The reopen's instant is written to the ms. A run that started and ended in its second, after it
    // (as on a fast machine), counts: its exact start tells it from the run before the reopen.
    const exact = readFileSync(p.workFile(id, 'rev'), 'utf8').match(/^budget_since: "?(\S+?\.\d{3}Z)"?$/m)?.[1];
    expect(exact).toBeDefined();
    const sinceMs = Date.parse(exact!);
    const home = openHome({ home: p.home, cwd: p.dir, env: {} });
    const last = runRecords(p.home).find((r) => r.started_ms > sinceMs)!;
    const second = new Date(Math.floor(sinceMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    writeRun(home, { ...last, started_at: second, ended_at: second, started_ms: sinceMs + 1 });
    expect((await p.json(['show', id])).budget.spent).toMatchObject({ tokens: PER_RUN.tokens, runs: 1 });
  });

  it('holon edit --budget raises a spent budget and reopens the item; none lifts a figure; bad input is exit 2', async () => {
    const p = await project('rev');
    fakeClaude(p);
    const id = await p.create('review', ['--budget', 'runs=1,cost=5usd']);
    expect((await once(p)).runs).toHaveLength(1);
    expect((await p.h(['tell', '--work', id, 'again'])).code).toBe(0);
    expect((await once(p)).runs).toHaveLength(0);
    expect((await p.json(['show', id])).status).toBe('blocked');
    const bad = await p.h(['edit', id, '--budget', 'runs=lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--budget: runs=lots is not a limit');
    expect((await p.h(['new', 'x', '--budget', 'tokns=1'])).code).toBe(2);
    expect((await p.h(['edit', id, '--budget', 'runs=3'])).code).toBe(0);
    const raised = await p.json(['show', id]);
    expect(raised).toMatchObject({ status: 'open', blocker: null, extra: { budget: 'cost=5usd,runs=3' }, budget: { state: 'ok', limits: { runs: 3, cost_usd: 5 }, left: { runs: 2 } } });
    expect(readFileSync(p.workFile(id, 'rev'), 'utf8')).toContain('budget raised to cost=5usd,runs=3: reopened');
    expect((await p.h(['edit', id, '--budget', 'runs=none'])).code).toBe(0);
    expect((await p.json(['show', id])).budget.limits).toEqual({ runs: null, cost_usd: 5 });
    expect((await p.h(['edit', id, '--budget', 'none'])).code).toBe(0);
    expect((await p.json(['show', id])).budget).toMatchObject({ state: 'none', limits: {} });
    expect(readFileSync(p.workFile(id, 'rev'), 'utf8')).not.toMatch(/^budget:/m);
  });

  it('layers the item budget over AGENTS.md policy.budget over holon.yaml budget.item, figure by figure', async () => {
    const p = await project('rev');
    const agents = join(p.home, 'agents/rev/AGENTS.md');
    writeFileSync(agents, readFileSync(agents, 'utf8').replace('policy:\n', 'policy:\n  budget: "runs=5,cost=2usd"\n'));
    appendFileSync(join(p.home, 'holon.yaml'), 'budget:\n  item: "runs=50,tokens=1M,time=2h"\n  warn: "90%"\n');
    const id = await p.create('x', ['--budget', 'runs=1'], { HOLON_AGENT: 'rev' });
    const b = (await p.json(['show', id])).budget;
    expect(b.limits).toEqual({ tokens: 1_000_000, cost_usd: 2, runs: 1, time_ms: 7_200_000 });
    expect(b.source).toEqual({ tokens: 'holon.yaml budget.item', cost_usd: 'agents/rev/AGENTS.md policy.budget', runs: 'item', time_ms: 'holon.yaml budget.item' });
    appendFileSync(join(p.home, 'holon.yaml'), 'timezone: "Mars/Olympus"\n');
    const broken = await p.h(['show', id]);
    expect(broken.code).toBe(3);
    expect(broken.stderr).toContain('timezone "Mars/Olympus" is not a time zone');
  });

  it('holon check names a malformed budget in a WorkItem and in AGENTS.md, with the line and the fix', async () => {
    const p = await project('rev');
    const id = await p.create('x', ['--budget', 'runs=2']);
    const file = p.workFile(id, 'rev');
    writeFileSync(file, readFileSync(file, 'utf8').replace('budget: "runs=2"', 'budget: "runs=two"'));
    const agents = join(p.home, 'agents/rev/AGENTS.md');
    writeFileSync(agents, readFileSync(agents, 'utf8').replace('policy:\n', 'policy:\n  daily_budget: "coins=3"\n'));
    const r = await p.h(['check']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(new RegExp(`${id}\\.md:\\d+: budget: runs=two is not a limit — fix: runs is a whole number: runs=20; or \`holon edit ${id} --budget \\.\\.\\.\``));
    expect(r.stdout).toMatch(/AGENTS\.md:\d+: policy\.daily_budget: unknown budget figure "coins"/);
    appendFileSync(join(p.home, 'holon.yaml'), 'budget:\n  daily: "runs=many"\n');
    const yaml = await p.h(['check']);
    expect(yaml.code).toBe(3);
    expect(yaml.stdout).toMatch(/holon\.yaml:\d+: budget\.daily: runs=many is not a limit — fix: runs is a whole number/);
  });

  it('the frontier sees new spending even when the item file did not change (the result cache checks the run records)', async () => {
    const p = await project('rev');
    fakeClaude(p);
    const id = await p.create('x', ['--budget', 'runs=2']);
    expect((await once(p)).runs).toHaveLength(1);
    expect((await p.json(['frontier', '--agent', 'rev'])).runnable.map((e: any) => e.id)).toEqual([id]);
    // A second run record (as from a run whose History line could not be written).
    const r = runRecords(p.home)[0];
    writeFileSync(join(p.home, 'local/runs', `${r.id}x.json`), JSON.stringify({ ...r, id: `${r.id}x` }));
    const front = await p.json(['frontier', '--agent', 'rev']);
    expect(front.not_runnable).toEqual([expect.objectContaining({ id, code: 'budget_exhausted', detail: expect.stringContaining('runs 2 of 2 spent, 0 left') })]);
  });

  it("a per-agent daily budget stops the agent's runs until the next day in the home time zone", async () => {
    const p = await project('rev');
    fakeClaude(p);
    const agents = join(p.home, 'agents/rev/AGENTS.md');
    writeFileSync(agents, readFileSync(agents, 'utf8').replace('policy:\n', 'policy:\n  daily_budget: "runs=1"\n'));
    appendFileSync(join(p.home, 'holon.yaml'), 'timezone: "Asia/Tokyo"\n');
    const a = await p.create('first');
    expect((await once(p)).runs).toHaveLength(1);
    const end = Date.parse(runRecords(p.home)[0].ended_at);
    const day = dayWindow(end, 'Asia/Tokyo');
    const b = await p.create('second');
    expect((await p.h(['tell', '--work', a, 'again'])).code).toBe(0);
    // Just before the Tokyo day ends: refused, nothing blocked (the wakes wait for the next day).
    const held = await once(p, day.endMs - 1);
    expect(held.runs).toEqual([]);
    expect(held.log).toContain(`not running rev: budget_exhausted: its daily budget for ${day.day} (Asia/Tokyo) is spent: runs 1 of 1 spent, 0 left; runs resume at ${new Date(day.endMs).toISOString().replace('.000Z', 'Z')}`);
    // On the clock of the first run's day (the real one may have passed Tokyo midnight meanwhile).
    const at = { HOLON_NOW: new Date(end).toISOString() };
    expect((await p.json(['show', a])).status).toBe('open');
    expect((await p.json(['show', b], at)).daily_budget).toMatchObject({ state: 'exhausted', day: day.day, timezone: 'Asia/Tokyo', left: { runs: 0 } });
    const runs = await p.json(['runs', '--work', a], at);
    expect(runs.totals[0]).toMatchObject({ agent: 'rev', daily_budget: { state: 'exhausted', limits: { runs: 1 } } });
    expect(runs.budget).toMatchObject({ item: a, state: 'none', spent: { runs: 1, tokens: PER_RUN.tokens } });
    expect(validate('runs.json', runs)).toEqual([]);
    expect(validate('show.json', await p.json(['show', b], at))).toEqual([]);
    expect((await p.h(['runs'], at)).stdout).toMatch(/daily budget of rev for \S+ \(Asia\/Tokyo\): exhausted: runs 1 of 1 spent, 0 left; resets at /);
    // The next day (Tokyo midnight) the agent runs again: one run, its budget for that day.
    const next = await once(p, day.endMs);
    expect(next.runs).toHaveLength(1);
    expect(next.log).not.toContain('not running rev: budget_exhausted');
  });
});
