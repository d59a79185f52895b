import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { project, ROOT } from '../helpers/cli.js';

const T0 = '2026-11-30T10:00:00Z';
const now = { HOLON_NOW: T0 };

describe('waits that could never wake are refused', () => {
  it("a wait on another agent's timer or task (its fire or result goes to that agent's inbox only)", async () => {
    const p = await project('main');
    await p.h(['agent', 'add', 'reviewer']);
    const mine = await p.create('review it', ['--agent', 'reviewer']);
    const timer = await p.json(['timer', 'add', '--in', '1h', '--agent', 'main'], now);
    const before = readFileSync(p.workFile(mine, 'reviewer'), 'utf8');
    const r = await p.h(['wait', mine, '--for', `timer:${timer.id}`, '--reason', 'r'], now);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/belongs to agent "main"/);
    expect(r.stderr).toContain('fix:');
    expect(readFileSync(p.workFile(mine, 'reviewer'), 'utf8')).toBe(before);
    const task = JSON.parse((await p.h(['task', 'run', '--agent', 'main', '--json', '--', 'sleep', '3'])).stdout);
    const rt = await p.h(['wait', mine, '--for', `task:${task.id}`, '--reason', 'r'], now);
    expect(rt.code).toBe(3);
    expect(rt.stderr).toMatch(/belongs to agent "main"/);
    expect(readFileSync(p.workFile(mine, 'reviewer'), 'utf8')).toBe(before);
    // Finished or not, another agent's task is refused (its result is not this item's).
    const quick = JSON.parse((await p.h(['task', 'run', '--agent', 'main', '--json', '--', 'true'])).stdout);
    for (const end = Date.now() + 60_000; (await p.json(['task', 'show', quick.id])).status === 'running'; ) {
      if (Date.now() > end) throw new Error('the task never finished');
      await new Promise((r) => setTimeout(r, 50));
    }
    const done = await p.h(['wait', mine, '--for', `task:${quick.id}`, '--reason', 'r'], now);
    expect(done.code).toBe(3);
    expect(done.stderr).toMatch(/belongs to agent "main"/);
    // A timer of the item's own agent is fine, and its fire triggers the wait.
    const own = await p.json(['timer', 'add', '--in', '1h', '--agent', 'reviewer'], now);
    const w = await p.json(['wait', mine, '--for', `timer:${own.id}`, '--reason', 'r'], now);
    expect(w.registered).toBe(true);
    const t = await p.json(['tick'], { HOLON_NOW: '2026-11-30T11:00:00Z' });
    expect(t.events_admitted.flatMap((e: any) => e.triggered)).toEqual([{ work_item: mine, wait: w.wait.id }]);
    // The 3 s task ends before the folder is removed: its supervisor's last writes are under it.
    for (const end = Date.now() + 60_000; (await p.json(['task', 'show', task.id])).status === 'running'; ) {
      if (Date.now() > end) throw new Error('the task never finished');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});

describe('holon check', () => {
  it("reports an active wait on another agent's timer (made before the refusal, or by hand)", async () => {
    const p = await project('main');
    await p.h(['agent', 'add', 'reviewer']);
    const mine = await p.create('review it', ['--agent', 'reviewer']);
    const w = await p.json(['wait', mine, '--for', 'timer', '--in', '1h', '--reason', 'r']);
    expect((await p.h(['check'])).code).toBe(0);
    // Move the timer to agent main, as an old record or a hand edit would have it.
    const from = join(p.home, 'agents/reviewer/timers', `${w.timer.id}.yaml`);
    const to = join(p.home, 'agents/main/timers', `${w.timer.id}.yaml`);
    mkdirSync(join(p.home, 'agents/main/timers'), { recursive: true });
    writeFileSync(from, readFileSync(from, 'utf8').replace('agent: "reviewer"', 'agent: "main"'));
    renameSync(from, to);
    const r = await p.h(['check']);
    expect(r.code).toBe(3);
    expect(r.stdout + r.stderr).toContain(`waits on timer ${w.timer.id} of agent "main": its fire never reaches agent "reviewer"`);
  });
});

describe('provenance', () => {
  it('notify notes a payload sent as wake_hint is never shown; an agent run cannot pose as the operator with `holon tell`', async () => {
    const p = await project();
    const r = await p.h(['notify', 'ci:run/1', '--payload', 'conclusion: failure']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/wake_hint.*not shown to the agent.*--mode message/);
    expect((await p.h(['notify', 'ci:run/1', '--payload', 'x', '--mode', 'message'])).stderr).not.toContain('not shown');
    // An unreadable @FILE says why in words.
    const missing = await p.h(['notify', 'ci:run/1', '--payload', '@nothere.json']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no such file \(ENOENT\)/);
    expect((await p.h(['notify', 'ci:run/1', '--payload', '@.'])).stderr).toMatch(/is a folder, not a file/);
    const a = await p.create('x');
    await p.json(['wait', a, '--for', 'operator', '--reason', 'need the go-ahead']);
    const r2 = await p.h(['tell', '--work', a, 'go ahead, merge it'], { HOLON_ACTOR: 'agent:main' });
    expect(r2.code).toBe(3);
    expect(r2.stderr).toMatch(/operator/);
    expect(r2.stderr).toContain('notify');
    expect((await p.json(['show', a])).waits[0].status).toBe('active');
    expect((await p.json(['inbox', '--all'])).admitted.filter((e: any) => e.source === 'operator')).toEqual([]);
    // A person (any other actor) still can.
    expect((await p.json(['tell', '--work', a, 'go ahead'], { HOLON_ACTOR: 'alice' })).provenance).toBe('cli:tell by alice');
  });
});

describe('timer schedules', () => {
  it('a repeating timer with a past --at starts at its next grid slot (no burst of "missed" slots); --every is whole seconds (a 1.5s grid would fire early)', async () => {
    const p = await project();
    const add = await p.h(['timer', 'add', '--at', '2026-11-30T06:30:00Z', '--every', '1h', '--json'], now);
    expect(add.code).toBe(0);
    const t = JSON.parse(add.stdout);
    expect(t).toMatchObject({ first_due_at: '2026-11-30T06:30:00Z', next_due_at: '2026-11-30T10:30:00Z', missed_count: 0 });
    expect(add.stderr).toContain('10:30:00Z');
    expect((await p.json(['tick'], now)).timers_fired).toEqual([]);
    const r = await p.json(['tick'], { HOLON_NOW: '2026-11-30T10:30:00Z' });
    expect(r.timers_fired).toEqual([expect.objectContaining({ timer: t.id, fire_count: 1, missed_count: 0, late_ms: 0 })]);
    // Its series already over: refused.
    const over = await p.h(['timer', 'add', '--at', '2026-11-30T06:30:00Z', '--every', '1h', '--until', '2026-11-30T09:00:00Z'], now);
    expect(over.code).toBe(3);
    expect(over.stderr).toMatch(/--until .* is past/);
    for (const every of ['1500ms', '2.5s']) {
      const r = await p.h(['timer', 'add', '--in', '1m', '--every', every], now);
      expect(r.code, every).toBe(3);
      expect(r.stderr).toMatch(/whole number of seconds/);
    }
    expect((await p.json(['timer', 'add', '--in', '1m', '--every', '90s'], now)).every).toBe('90s');
  });
});

describe('wait flags', () => {
  it('a --recheck before the timer is due is refused and leaves no timer; --cancel/--resolve of an unknown wait is 4, conflicting flags 3', async () => {
    const p = await project();
    const a = await p.create('x', [], now);
    const before = readFileSync(p.workFile(a), 'utf8');
    const r = await p.h(['wait', a, '--for', 'timer', '--in', '2h', '--recheck', '1h', '--reason', 'r'], now);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/--recheck .* before the timer is due/);
    expect((await p.json(['timer', 'list', '--all'])).timers).toEqual([]);
    const t = await p.json(['timer', 'add', '--in', '2h'], now);
    expect((await p.h(['wait', a, '--for', `timer:${t.id}`, '--recheck', '2026-11-30T11:00:00Z', '--reason', 'r'], now)).code).toBe(3);
    expect(readFileSync(p.workFile(a), 'utf8')).toBe(before);
    expect((await p.json(['wait', a, '--for', 'timer', '--in', '2h', '--recheck', '3h', '--reason', 'r'], now)).wait.recheck_at).toBe('2026-11-30T13:00:00Z');
    const w = await p.json(['wait', a, '--for', 'external:q:1', '--reason', 'r']);
    const before2 = readFileSync(p.workFile(a), 'utf8');
    for (const flag of ['--cancel', '--resolve']) {
      const r = await p.h(['wait', a, flag, 'wt-nothere1']);
      expect(r.code, flag).toBe(4);
      expect(r.stderr).toContain(`${a} has no wait wt-nothere1`);
    }
    const both = await p.h(['wait', a, '--cancel', w.wait.id, '--resolve', w.wait.id]);
    expect(both.code).toBe(3);
    expect(both.stderr).toMatch(/either --cancel or --resolve/);
    const mixed = await p.h(['wait', a, '--for', 'operator', '--reason', 'r', '--cancel', w.wait.id]);
    expect(mixed.code).toBe(3);
    expect(mixed.stderr).toMatch(/register a new wait, not with --cancel/);
    expect(readFileSync(p.workFile(a), 'utf8')).toBe(before2);
  });
});

describe('defer', () => {
  it('refuses a resume time already past, writing nothing; done:ID names an existing item (a prefix is stored as the full id, unknown is 4)', async () => {
    const p = await project();
    const a = await p.create('x', [], now);
    const before = readFileSync(p.workFile(a), 'utf8');
    for (const args of [['--until', '2026-11-30T09:00:00Z'], ['--when', 'at:2026-11-29T00:00:00Z'], ['--until', '2026-12-01T00:00:00Z', '--when', 'at:2026-11-29T00:00:00Z']]) {
      const r = await p.h(['defer', a, ...args, '--reason', 'r'], now);
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr).toMatch(/is already past/);
      expect(r.stderr).toContain('fix:');
    }
    expect(readFileSync(p.workFile(a), 'utf8')).toBe(before);
    const ok = await p.json(['defer', a, '--until', '2026-12-01T00:00:00Z', '--when', 'event:ci:run/1', '--reason', 'r'], now);
    expect(ok).toMatchObject({ status: 'deferred', resume_when: ['at:2026-12-01T00:00:00Z', 'event:ci:run/1'] });
    const b = await p.create('y', [], now);
    const before2 = readFileSync(p.workFile(b), 'utf8');
    const r = await p.h(['defer', b, '--when', 'done:w-nosuch99', '--reason', 'r'], now);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no WorkItem "w-nosuch99"');
    expect(readFileSync(p.workFile(b), 'utf8')).toBe(before2);
    const ok2 = await p.json(['defer', b, '--when', `done:${a.slice(0, 6)}`, '--reason', 'after x'], now);
    expect(ok2.resume_when).toEqual([`done:${a}`]);
    // Never until itself is done: it would stay deferred forever.
    const self = await p.h(['defer', b, '--when', `done:${b}`, '--reason', 'r'], now);
    expect(self.code).toBe(3);
    expect(self.stderr).toContain('cannot wait for itself');
  });
});

describe('completion', () => {
  it('a done item cannot be the successor (outstanding work handed to it would be lost), nor take a new timer', async () => {
    const p = await project();
    const a = await p.create('a', [], now);
    const old = await p.create('old', [], now);
    await p.json(['complete', old, '--result', 'r', '--evidence', 'e', '--no-followup', 'n'], now);
    const before = readFileSync(p.workFile(a), 'utf8');
    const r = await p.h(['complete', a, '--result', 'r', '--evidence', 'e', '--outstanding', 'v1 clients', '--successor', old], now);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`successor ${old} is done`);
    expect(readFileSync(p.workFile(a), 'utf8')).toBe(before);
    // Nor does it take a new timer: it could only wake the agent for nothing.
    const t = await p.h(['timer', 'add', '--in', '1h', '--work', old], now);
    expect(t.code).toBe(3);
    expect(t.stderr).toContain(`${old} is done`);
    expect((await p.json(['timer', 'list', '--all'])).timers).toEqual([]);
  });

  it('a busy timer does not hold completion hostage: the item is done at once, the timer named with the command to cancel it', async () => {
    const p = await project();
    const a = await p.create('a', [], now);
    const t = await p.json(['timer', 'add', '--in', '1h', '--work', a], now);
    const holder = spawn(process.execPath, [join(ROOT, 'test/helpers/hold-lock.mjs'), p.home, `main.${t.id}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((res) => holder.stdout!.once('data', () => res()));
    try {
      // The lock holder never lets go while this runs: completing at all proves it did not wait for it.
      const r = await p.h(['complete', a, '--result', 'r', '--evidence', 'e', '--no-followup', 'n', '--json'], now);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'done', timers_cancelled: [] });
      expect(r.stderr).toContain(`holon timer cancel ${t.id}`);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it("completing an item leaves its timer alone while another item still waits on it (that item is not blocked)", async () => {
    const p = await project();
    const a = await p.create('a', [], now);
    const b = await p.create('b', [], now);
    const t = await p.json(['timer', 'add', '--in', '1h', '--work', a], now);
    const own = await p.json(['timer', 'add', '--in', '2h', '--work', a], now);
    const w = await p.json(['wait', b, '--for', `timer:${t.id}`, '--reason', 'b waits on a\'s timer'], now);
    const done = await p.json(['complete', a, '--result', 'r', '--evidence', 'e', '--no-followup', 'n'], now);
    expect(done.timers_cancelled).toEqual([own.id]);
    expect((await p.json(['show', b])).status).toBe('open');
    const r = await p.json(['tick'], { HOLON_NOW: '2026-11-30T11:00:00Z' });
    expect(r.events_admitted.flatMap((e: any) => e.triggered)).toEqual([{ work_item: b, wait: w.wait.id }]);
  });
});

describe('help and usage', () => {
  it('task run without -- shows where the command goes; notify --help names each default once', async () => {
    const p = await project();
    const r = await p.h(['task', 'run', 'ls', '-la']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage: holon task run [--work ID] [--json] -- <command...>');
    const help = (await p.h(['notify', '--help'])).stdout;
    expect(help.match(/default/g)).toHaveLength(2);
  });
});

describe('tick', () => {
  it('names the malformed records it skipped on stderr (JSON on stdout unchanged)', async () => {
    const p = await project();
    const t = await p.json(['timer', 'add', '--in', '1m'], now);
    appendFileSync(join(p.home, 'agents/main/timers', `${t.id}.yaml`), 'garbage: [\n');
    const r = await p.h(['tick', '--json'], { HOLON_NOW: '2026-11-30T11:00:00Z' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).timers_fired).toEqual([]);
    expect(r.stderr).toContain(`skipped ${join(p.home, 'agents/main/timers', `${t.id}.yaml`)}`);
    expect(r.stderr).toContain('holon check');
  });
});
