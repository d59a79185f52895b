import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, ROOT, spawnHolon } from '../helpers/cli.js';
import { until } from '../helpers/watch.js';

type P = Awaited<ReturnType<typeof project>>;
const T0 = '2026-11-30T10:00:00Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

/** Every event record (queued or admitted) of an agent whose resource is timer:ID. */
function timerEvents(p: P, timer: string, agent = 'main'): string[] {
  const out: string[] = [];
  for (const sub of ['inbox', 'events']) {
    const dir = join(p.home, 'agents', agent, sub);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
      if (readFileSync(join(dir, f), 'utf8').includes(`resource: "timer:${timer}"`)) out.push(f);
    }
  }
  return out;
}

const timerFile = (p: P, id: string) => join(p.home, 'agents/main/timers', `${id}.yaml`);

describe('timers with real time', () => {
  it('never fire early, and fire at the first pass after due', async () => {
    const p = await project();
    const a = await p.create('recheck the deploy');
    const created = Date.now();
    const w = await p.json(['wait', a, '--for', 'timer', '--in', '2s', '--reason', 'recheck the deploy in 2s']);
    const due = Date.parse(w.timer.next_due_at);
    expect(due).toBeGreaterThanOrEqual(created + 2000);
    let fired: any = null;
    let firedAt = 0;
    let lastEmpty = 0;
    while (!fired) {
      const r = await p.json(['tick']);
      const passAt = Date.parse(r.now);
      if (r.timers_fired.length) {
        fired = r.timers_fired[0];
        firedAt = passAt;
      } else lastEmpty = passAt;
      if (Date.now() - created > 120_000) throw new Error('the timer never fired within two minutes');
    }
    // Never early: the firing pass ran at or after due, every pass before it ran before due.
    expect(firedAt).toBeGreaterThanOrEqual(due);
    expect(lastEmpty).toBeLessThan(due);
    expect(fired).toMatchObject({ timer: w.timer.id, work_item: a, fire_count: 1, missed_count: 0 });
    // Its lateness is exactly the pass's distance from due: one polling interval at most
    // (watch mode wakes at the due time instead of polling).
    // (`now` is printed to the second like every other time; late_ms keeps the milliseconds.)
    expect(fired.late_ms).toBeGreaterThanOrEqual(firedAt - due);
    expect(fired.late_ms).toBeLessThan(firedAt - due + 1000);
    expect(fired.late_ms).toBeLessThanOrEqual(firedAt - lastEmpty);
    const shown = await p.json(['show', a]);
    expect(shown.waits[0]).toMatchObject({ status: 'triggered', settled_by: { source: 'timer', mode: 'wake_hint' } });
    expect((await p.json(['timer', 'list'])).timers).toEqual([]);
    expect((await p.json(['timer', 'list', '--all'])).timers[0]).toMatchObject({ status: 'fired', fire_count: 1, work_item: a });
  }, 150_000);
});

describe('timers on a fixed clock', () => {
  it('collapse missed repeats into one fire, stay on schedule, and fire once per slot', async () => {
    const p = await project();
    const add = await p.json(['timer', 'add', '--in', '1h', '--every', '1h', '--summary', 'hourly check'], { HOLON_NOW: T0 });
    expect(add).toMatchObject({ status: 'active', next_due_at: '2026-11-30T11:00:00Z', every: '1h' });
    expect((await p.json(['tick'], { HOLON_NOW: at(3600_000 - 1000) })).timers_fired).toEqual([]);
    const late = await p.json(['tick'], { HOLON_NOW: at(4.5 * 3600_000) });
    expect(late.timers_fired).toEqual([expect.objectContaining({ timer: add.id, fire_count: 1, missed_count: 3, due_at: '2026-11-30T14:00:00Z', late_ms: 30 * 60_000 })]);
    expect(late.wakes).toContainEqual(expect.objectContaining({ reason: 'timer_fired', timer: add.id }));
    // The same moment again (a restart, a second tick) fires nothing.
    expect((await p.json(['tick'], { HOLON_NOW: at(4.5 * 3600_000) })).timers_fired).toEqual([]);
    const t = (await p.json(['timer', 'list'], { HOLON_NOW: at(4.5 * 3600_000) })).timers[0];
    expect(t).toMatchObject({ next_due_at: '2026-11-30T15:00:00Z', last_slot_at: '2026-11-30T14:00:00Z', fire_count: 1, missed_count: 3 });
    const next = await p.json(['tick'], { HOLON_NOW: at(5 * 3600_000) });
    expect(next.timers_fired).toEqual([expect.objectContaining({ fire_count: 2, missed_count: 0, late_ms: 0 })]);
    expect(timerEvents(p, add.id)).toHaveLength(2);
  });

  it('validates schedules, accepts a past --at, and stops a repeat at --until', async () => {
    const p = await project();
    const now = { HOLON_NOW: T0 };
    for (const [args, msg] of [
      [['timer', 'add'], /exactly one of --in/],
      [['timer', 'add', '--in', '1h', '--at', '2026-12-01T00:00:00Z'], /exactly one of --in/],
      [['timer', 'add', '--in', 'soon'], /not a duration/],
      [['timer', 'add', '--in', '1h', '--every', '500ms'], /shorter than a second/],
      [['timer', 'add', '--in', '1h', '--until', '2026-12-01T00:00:00Z'], /--until needs --every/],
      [['timer', 'add', '--in', '2h', '--every', '1h', '--until', '2026-11-30T11:00:00Z'], /before the first due time/],
      [['timer', 'add', '--in', '1h', '--work', 'w-nosuch99'], /no WorkItem/],
    ] as Array<[string[], RegExp]>) {
      const r = await p.h(args, now);
      // A missing or doubled --in/--at is usage (2); a bad value is invalid (3); an unknown item is 4.
      expect(r.code, args.join(' ')).toBe(args.includes('--work') ? 4 : /exactly one/.test(msg.source) ? 2 : 3);
      expect(r.stderr).toMatch(msg);
    }
    expect((await p.json(['timer', 'list', '--all'])).timers).toEqual([]);
    const past = await p.h(['timer', 'add', '--at', '2026-11-30T09:00:00Z'], now);
    expect(past.code).toBe(0);
    expect(past.stderr).toContain('already past');
    const rep = await p.json(['timer', 'add', '--in', '1h', '--every', '1h', '--until', '2026-11-30T13:00:00Z'], now);
    const r = await p.json(['tick'], { HOLON_NOW: '2026-11-30T20:00:00Z' });
    expect(r.timers_fired).toContainEqual(expect.objectContaining({ timer: rep.id, missed_count: 2, due_at: '2026-11-30T13:00:00Z' }));
    expect((await p.json(['timer', 'list', '--all'])).timers.find((t: any) => t.id === rep.id)).toMatchObject({ status: 'fired', next_due_at: null, fire_count: 1, missed_count: 2 });
  });

  it('two ticks at the same moment never fire a timer twice', async () => {
    const p = await project();
    // Created concurrently: each is a new file under its own lock.
    const ids: string[] = (await Promise.all([0, 1, 2, 3, 4, 5].map(() => p.json(['timer', 'add', '--in', '1m'], { HOLON_NOW: T0 })))).map((t) => t.id);
    const now = { HOLON_NOW: at(120_000) };
    const reports = await Promise.all([0, 1, 2, 3].map(() => holon(['tick', '--json'], { cwd: p.dir, env: now })));
    const fired = reports.flatMap((r) => JSON.parse(r.stdout).timers_fired.map((f: any) => f.timer));
    expect(fired.sort()).toEqual([...ids].sort());
    for (const id of ids) expect(timerEvents(p, id)).toHaveLength(1);
  });

  it('cancel settles waits with timer_cancelled, blocks the item, and is idempotent', async () => {
    const p = await project();
    const a = await p.create('recheck later', [], { HOLON_NOW: T0 });
    const w = await p.json(['wait', a, '--for', 'timer', '--in', '2h', '--reason', 'recheck in 2h'], { HOLON_NOW: T0 });
    expect(w.wait.recheck_at).toBe('2026-12-01T12:00:00Z');
    const c = await p.json(['timer', 'cancel', w.timer.id], { HOLON_NOW: at(60_000) });
    expect(c).toMatchObject({ outcome: 'cancelled', settled: [{ work_item: a, wait: w.wait.id }], timer: { status: 'cancelled', next_due_at: null } });
    const item = await p.json(['show', a]);
    expect(item).toMatchObject({ status: 'blocked', blocker: { reason: expect.stringContaining(w.timer.id) } });
    expect(item.waits[0]).toMatchObject({ status: 'cancelled', settled_reason: 'timer_cancelled' });
    const before = readFileSync(timerFile(p, w.timer.id), 'utf8');
    const again = await p.json(['timer', 'cancel', w.timer.id], { HOLON_NOW: at(120_000) });
    expect(again).toMatchObject({ outcome: 'already_cancelled', settled: [] });
    expect(readFileSync(timerFile(p, w.timer.id), 'utf8')).toBe(before);
    expect((await p.json(['tick'], { HOLON_NOW: at(3 * 3600_000) })).timers_fired).toEqual([]);
    expect((await p.json(['show', a])).status).toBe('blocked');
    expect((await p.json(['timer', 'list', '--all'])).timers[0]).toMatchObject({ status: 'cancelled', fire_count: 0 });
  });

  it('cancel racing a fire: exactly one of them wins, never both', async () => {
    const p = await project();
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const a = await p.create(`race ${i}`, [], { HOLON_NOW: T0 });
      const w = await p.json(['wait', a, '--for', 'timer', '--in', '1m', '--reason', 'race'], { HOLON_NOW: T0 });
      const now = { HOLON_NOW: at(61_000) };
      const [t, c] = await Promise.all([holon(['tick', '--json'], { cwd: p.dir, env: now }), holon(['timer', 'cancel', w.timer.id, '--json'], { cwd: p.dir, env: now })]);
      expect(t.code).toBe(0);
      expect(c.code).toBe(0);
      await p.json(['tick'], now);
      const timer = (await p.json(['timer', 'list', '--all'])).timers.find((x: any) => x.id === w.timer.id);
      const item = await p.json(['show', a]);
      const cancel = JSON.parse(c.stdout);
      if (cancel.outcome === 'cancelled') {
        expect(timer).toMatchObject({ status: 'cancelled', fire_count: 0 });
        expect(timerEvents(p, w.timer.id)).toHaveLength(0);
        expect(item.waits[0]).toMatchObject({ status: 'cancelled', settled_reason: 'timer_cancelled' });
        expect(item.status).toBe('blocked');
      } else {
        expect(cancel.outcome).toBe('already_fired');
        expect(timer).toMatchObject({ status: 'fired', fire_count: 1 });
        expect(timerEvents(p, w.timer.id)).toHaveLength(1);
        expect(item.waits[0].status).toBe('triggered');
        expect(item.status).toBe('open');
      }
      outcomes.push(cancel.outcome);
    }
    expect(outcomes).toHaveLength(4);
  });
});

describe('a tick killed mid-way', () => {
  it('after the fire event was queued but before the timer was written: the rerun fires nothing twice', async () => {
    const p = await project();
    const a = await p.create('x', [], { HOLON_NOW: T0 });
    const w = await p.json(['wait', a, '--for', 'timer', '--in', '1m', '--reason', 'r'], { HOLON_NOW: T0 });
    const before = readFileSync(timerFile(p, w.timer.id), 'utf8');
    const killed = await holon(['tick', '--json'], { cwd: p.dir, env: { HOLON_NOW: at(60_000), HOLON_TEST_KILL_AT: 'timer-event' } });
    expect(killed.code).not.toBe(0);
    expect(readFileSync(timerFile(p, w.timer.id), 'utf8')).toBe(before);
    expect(timerEvents(p, w.timer.id)).toHaveLength(1);
    const rerun = await p.json(['tick'], { HOLON_NOW: at(61_000) });
    expect(rerun.timers_fired).toHaveLength(1);
    expect(rerun.events_admitted[0].triggered).toEqual([{ work_item: a, wait: w.wait.id }]);
    expect(timerEvents(p, w.timer.id)).toHaveLength(1);
    expect((await p.json(['tick'], { HOLON_NOW: at(62_000) })).timers_fired).toEqual([]);
    expect((await p.json(['timer', 'list', '--all'])).timers[0].fire_count).toBe(1);
  });

  it('after waits were triggered but before the event was moved: the rerun reports the same waits once', async () => {
    const p = await project();
    const a = await p.create('x');
    const w = await p.json(['wait', a, '--for', 'external:ci:run/1', '--reason', 'r']);
    const killed = await holon(['notify', 'ci:run/1', '--json'], { cwd: p.dir, env: { HOLON_TEST_KILL_AT: 'admission' } });
    expect(killed.code).not.toBe(0);
    const mid = await p.json(['show', a]);
    expect(mid.waits[0].status).toBe('triggered');
    const rev = mid.revision;
    expect(readdirSync(join(p.home, 'agents/main/inbox')).filter((f) => f.endsWith('.yaml'))).toHaveLength(1);
    const r = await p.json(['tick']);
    expect(r.events_admitted).toEqual([expect.objectContaining({ triggered: [{ work_item: a, wait: w.wait.id }], nudged: false })]);
    expect((await p.json(['show', a])).revision).toBe(rev);
    expect(readdirSync(join(p.home, 'agents/main/inbox')).filter((f) => f.endsWith('.yaml'))).toHaveLength(0);
  });

  it('a cancel killed before it settled the waits is completed by the next tick', async () => {
    const p = await project();
    const a = await p.create('x', [], { HOLON_NOW: T0 });
    const w = await p.json(['wait', a, '--for', 'timer', '--in', '1h', '--reason', 'r'], { HOLON_NOW: T0 });
    const killed = await holon(['timer', 'cancel', w.timer.id], { cwd: p.dir, env: { HOLON_NOW: at(60_000), HOLON_TEST_KILL_AT: 'timer-cancel' } });
    expect(killed.code).not.toBe(0);
    expect((await p.json(['show', a])).waits[0].status).toBe('active');
    expect((await p.json(['timer', 'list', '--all'])).timers[0].status).toBe('cancelled');
    await p.json(['tick'], { HOLON_NOW: at(120_000) });
    const item = await p.json(['show', a]);
    expect(item.waits[0]).toMatchObject({ status: 'cancelled', settled_reason: 'timer_cancelled' });
    expect(item.status).toBe('blocked');
  });

  it('SIGKILL at random moments during a busy tick: every timer fires exactly once', async () => {
    const p = await project();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await p.json(['timer', 'add', '--in', '1m', '--every', '1h'], { HOLON_NOW: T0 })).id);
    // Many due timers in one home, made quickly by one child process writing through holon's own module.
    const { execFileSync } = await import('node:child_process');
    const src = readFileSync(timerFile(p, ids[0]), 'utf8');
    const script = `
      const fs = require('node:fs'); const path = require('node:path');
      const dir = ${JSON.stringify(join(p.home, 'agents/main/timers'))};
      const src = ${JSON.stringify(src)};
      for (let i = 0; i < 60; i++) { const id = 't-bulk' + String(i).padStart(4, '0'); fs.writeFileSync(path.join(dir, id + '.yaml'), src.replaceAll(${JSON.stringify(ids[0])}, id)); }`;
    execFileSync(process.execPath, ['-e', script]);
    const all = readdirSync(join(p.home, 'agents/main/timers')).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5));
    expect(all).toHaveLength(63);
    const now = { HOLON_NOW: at(90_000) };
    const queued = () => readdirSync(join(p.home, 'agents/main/inbox')).filter((f) => f.endsWith('.yaml')).length;
    // Two kills at fixed points of the batch (the 5th and the 15th fire of a run: mid-way on any machine).
    for (const nth of [5, 15]) {
      const killed = await holon(['tick', '--json'], { cwd: p.dir, env: { ...now, HOLON_TEST_KILL_AT: `timer-event@${nth}` } });
      expect(killed.code).not.toBe(0);
    }
    const midway = (await p.json(['timer', 'list', '--all'], now)).timers.filter((t: any) => t.fire_count > 0).length;
    expect(midway).toBe(4 + 14);
    for (const target of [30, 45]) {
      // Then kills at whatever moment the tick has reached (a mid-write kill, when the timing lands one).
      const child = spawnHolon(['tick', '--json'], { cwd: p.dir, env: now });
      const exited = new Promise((r) => child.on('exit', r));
      const until = Date.now() + 10_000;
      while (queued() < target && Date.now() < until && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
      child.kill('SIGKILL');
      await exited;
    }
    await p.json(['tick'], now);
    await p.json(['tick'], now);
    const timers = (await p.json(['timer', 'list', '--all'], now)).timers;
    expect(timers).toHaveLength(63);
    for (const t of timers) {
      expect(t.fire_count, t.id).toBe(1);
      expect(timerEvents(p, t.id), t.id).toHaveLength(1);
    }
  });
});

describe('a timer that fires while its wait is being registered', () => {
  it('settles the wait from that fire, instead of leaving it active on a timer that will not fire again', async () => {
    const p = await project();
    const a = await p.create('look again');
    // The item's lock is held, so the wait makes its timer and then waits to register itself.
    const holder = spawn(process.execPath, [join(ROOT, 'test/helpers/hold-lock.mjs'), p.home, `main.${a}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((res) => holder.stdout!.once('data', () => res()));
    const past = new Date(Date.now() - 5000).toISOString();
    const waiting = p.h(['wait', a, '--for', 'timer', '--at', past, '--reason', 'look again', '--json']);
    const dir = join(p.home, 'agents/main/timers');
    await until(() => existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.yaml')), 60_000, 'the wait to make its timer');
    // Meanwhile a pass (a watcher's, at once for a timer already due) fires it: its event finds no wait yet.
    const tick = await p.json(['tick']);
    expect(tick.timers_fired).toHaveLength(1);
    expect(tick.events_admitted).toEqual([expect.objectContaining({ triggered: [], nudged: true })]);
    holder.kill('SIGTERM');
    await new Promise((res) => holder.on('exit', res));
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    const fire = tick.events_admitted[0].event;
    expect(JSON.parse(r.stdout).wait).toMatchObject({ status: 'triggered', settled_by: { event: fire, source: 'timer' } });
    expect((await p.json(['show', a])).waits).toEqual([expect.objectContaining({ status: 'triggered' })]);
  });
});
