import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, spawnHolon } from '../helpers/cli.js';
import { gone, settledProject, startWatch, until } from '../helpers/watch.js';

/**
 * A command that stats every file of a big home starts an index keeper for the next ones
 * (store/index-auto-start.ts); `holon index --stop` and `--idle-exit` end one; of two keepers starting
 * at once, one keeps the index (store/index-keeper-claim.ts). HOLON_INDEX_AUTO=N makes a home of N
 * files big here (the default is 2,000); CI='' since the start is off under CI.
 */

const home = settledProject;

// No background refresh (the traces say which path each command took), and the keeper's answer waited for.
const auto = { HOLON_INDEX_AUTO: '3', CI: '', HOLON_INDEX_REFRESH: '0', HOLON_TRACE_INDEX: '1', HOLON_INDEX_WAIT_MS: '60000' };
const ready = (r: { stdout: string }) => JSON.parse(r.stdout).runnable.map((e: any) => e.id).sort();

describe('a keeper started by a command', () => {
  it('starts once a home is big, vouches for the next listings, and stops with holon index --stop', async () => {
    const { p, ids } = await home(3);
    const first = await p.h(['frontier', '--json'], auto);
    expect(first.code).toBe(0);
    const pid = Number(first.stderr.match(/started an index keeper \(pid (\d+)/)?.[1]);
    expect(pid).toBeGreaterThan(0);
    const status = await until(async () => (await p.json(['index', '--status'])).keeper, 30_000, 'the keeper');
    expect(status.pid).toBe(pid);
    expect(status.idle_exit_ms).toBe(3_600_000);
    expect((await p.h(['index', '--status'])).stdout).toMatch(/it stops after 1h without a question/);
    // Its first answer cannot vouch for a snapshot made before it watched; the listing made under it can.
    expect((await p.h(['frontier', '--json'], auto)).stderr).toMatch(/main: every file stat'ed \(snapshot made without a keeper\)/);
    const kept = await p.h(['frontier', '--json'], auto);
    expect(kept.stderr).toMatch(/main: kept, 0 of 3 stat'ed/);
    expect(ready(kept)).toEqual(ids.slice().sort());
    // A change is seen through it, as without it.
    expect((await p.h(['complete', ids[0], '--result', 'r', '--evidence', 'e', '--no-followup', 'x'])).code).toBe(0);
    const after = await p.h(['frontier', '--json'], auto);
    expect(after.stderr).toMatch(/main: kept, 1 of 3 stat'ed/);
    expect(ready(after)).toEqual(ready(await p.h(['frontier', '--json'], { HOLON_INDEX: '0' })));
    expect(existsSync(join(p.home, 'local/index/keeper.log'))).toBe(true);

    const stop = await p.h(['index', '--stop']);
    expect(stop.stdout).toMatch(new RegExp(`stopped the index keeper \\(process ${pid}\\)`));
    expect(gone(pid)).toBe(true);
    expect((await p.json(['index', '--status'])).keeper).toBeNull();
    expect((await p.json(['index', '--stop'])).stopped).toBeNull();
    // Not started again by every command: the last try was moments ago.
    expect((await p.h(['frontier', '--json'], auto)).stderr).toMatch(/no keeper started \(one was started \d+ s ago\)/);
    expect((await p.json(['index', '--status'])).keeper).toBeNull();
  }, 120_000);

  it('is not started in a small home, with HOLON_INDEX_AUTO=0, under CI, or with HOLON_INDEX=0', async () => {
    const { p } = await home(3);
    for (const env of [{ ...auto, HOLON_INDEX_AUTO: '' }, { ...auto, HOLON_INDEX_AUTO: '0' }, { ...auto, HOLON_INDEX_AUTO: 'off' }, { ...auto, CI: 'true' }, { ...auto, HOLON_INDEX: '0' }]) {
      const r = await p.h(['frontier', '--json'], env);
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/keeper started/);
    }
    expect(existsSync(join(p.home, 'local/index/auto-start'))).toBe(false);
    expect((await p.json(['index', '--status'])).keeper).toBeNull();
  }, 120_000);

  it('where local/index cannot be made, the command answers as always and starts nothing', async () => {
    const { p, ids } = await home(3);
    mkdirSync(join(p.home, 'local'), { recursive: true });
    rmSync(join(p.home, 'local/index'), { recursive: true, force: true });
    writeFileSync(join(p.home, 'local/index'), 'not a folder');
    const r = await p.h(['frontier', '--json'], auto);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no keeper started: /);
    expect(ready(r)).toEqual(ids.slice().sort());
  }, 120_000);
});

describe('holon index', () => {
  it('of two started at once, one keeps the index and the other says which process does', async () => {
    const { p } = await home(1);
    const env = { HOLON_INDEX_REFRESH: '0' };
    const procs = [spawnHolon(['index'], { cwd: p.dir, env }), spawnHolon(['index'], { cwd: p.dir, env })];
    const logs = ['', ''];
    procs.forEach((c, i) => c.stderr!.on('data', (d) => (logs[i] += d)));
    try {
      const keeps = (i: number) => /keeping the work index/.test(logs[i]);
      // Both keeping the index (no claim) fails here at once rather than by a timeout.
      await until(() => procs.some((c) => c.exitCode !== null) || (keeps(0) && keeps(1)), 60_000, 'one of the two to stop');
      expect(keeps(0) && keeps(1)).toBe(false);
      const exited = procs[0].exitCode !== null ? 0 : 1;
      const winner = procs[1 - exited];
      expect(procs[exited].exitCode).toBe(1);
      expect(logs[exited]).toMatch(new RegExp(`process ${winner.pid} keeps this home's index already`));
      await until(() => /keeping the work index/.test(logs[1 - exited]), 30_000, 'the keeper');
      expect((await p.json(['index', '--status'])).keeper.pid).toBe(winner.pid);
    } finally {
      for (const c of procs) if (c.exitCode === null) c.kill('SIGTERM');
    }
  }, 120_000);

  it('holon watch takes over from a keeper that idles out (one a command started)', async () => {
    const { p } = await home(1);
    const k = spawnHolon(['index', '--idle-exit', '1h'], { cwd: p.dir, env: { HOLON_INDEX_REFRESH: '0' } });
    const idling = await until(async () => (await p.json(['index', '--status'])).keeper, 30_000, 'the keeper');
    expect(idling.pid).toBe(k.pid);
    const w = startWatch(p.dir);
    try {
      await w.waitFor(new RegExp(`took over from process ${k.pid}`));
      await w.waitFor(/index keeper: keeping the work index/);
      expect(await new Promise((r) => (k.exitCode !== null ? r(k.exitCode) : k.on('exit', (c) => r(c))))).toBe(0);
      expect((await p.json(['index', '--status'])).keeper.pid).toBe(w.child.pid);
    } finally {
      await w.stop();
    }
  }, 120_000);

  it('a pid that names another process now (a keeper killed outright, its pid reused) is neither trusted nor signalled', async () => {
    const { p } = await home(1);
    const other = spawn('sleep', ['120']);
    try {
      const dir = join(p.home, 'local/index');
      mkdirSync(join(dir, 'req'), { recursive: true });
      const key = (d: string) => `${statSync(d).dev}:${statSync(d).ino}`;
      // As a keeper writes them, but its process start is not that of the process with the pid now.
      writeFileSync(join(dir, 'keeper.json'), JSON.stringify({ pid: other.pid, started_at: '2026-12-01T00:00:00Z', req: key(join(dir, 'req')), idle_exit_ms: null, start: '1' }));
      writeFileSync(join(dir, 'host.json'), JSON.stringify({ pid: other.pid, dir: key(dir), start: '1' }));
      expect((await p.json(['index', '--status'])).keeper).toBeNull();
      expect((await p.json(['index', '--stop'])).stopped).toBeNull();
      expect(other.exitCode).toBeNull();
      expect(gone(other.pid!)).toBe(false);
      // Nor does it block a keeper from starting.
      const k = spawnHolon(['index'], { cwd: p.dir, env: { HOLON_INDEX_REFRESH: '0' } });
      expect((await until(async () => (await p.json(['index', '--status'])).keeper, 30_000, 'the keeper')).pid).toBe(k.pid);
      expect((await p.h(['index', '--stop'])).stdout).toMatch(new RegExp(`stopped the index keeper \\(process ${k.pid}\\)`));
    } finally {
      other.kill('SIGKILL');
    }
  }, 120_000);

  it('--idle-exit: stops after that long without a question, and says so (exit 0)', async () => {
    const { p } = await home(1);
    const k = spawnHolon(['index', '--idle-exit', '1s'], { cwd: p.dir, env: { HOLON_INDEX_REFRESH: '0' } });
    let log = '';
    k.stderr!.on('data', (d) => (log += d));
    const code = await new Promise<number | null>((r) => k.on('exit', (c) => r(c)));
    expect(log).toMatch(/stops after 1 s without a question/);
    expect(log).toMatch(/stopping: no question for \d+ s/);
    expect(code).toBe(0);
    expect((await p.json(['index', '--status'])).keeper).toBeNull();
  }, 120_000);

  it('--idle-exit: the questions of its own refreshes (HOLON_INDEX_REFRESHING) keep it no longer', async () => {
    const { p } = await home(1);
    // 10 s: time enough for a question to be answered on a loaded machine; were the questions
    // counted, the loop below (one question after another, each well under 10 s) would keep it for 60 s.
    const k = spawnHolon(['index', '--idle-exit', '10s'], { cwd: p.dir, env: { HOLON_INDEX_REFRESH: '0' } });
    let log = '';
    k.stderr!.on('data', (d) => (log += d));
    const exited = new Promise<number | null>((r) => k.on('exit', (c) => r(c)));
    let done = false;
    void exited.then(() => (done = true));
    await until(async () => (await p.json(['index', '--status'])).keeper, 30_000, 'the keeper');
    // Questions such as a refresh asks, one after another: were they counted, it would never stop.
    let kept = 0;
    const until60 = Date.now() + 60_000;
    while (!done && Date.now() < until60) {
      const r = await p.h(['frontier', '--json'], { HOLON_INDEX_REFRESHING: '1', HOLON_TRACE_INDEX: '1', HOLON_INDEX_WAIT_MS: '60000' });
      if (/main: kept/.test(r.stderr)) kept++;
    }
    expect(done).toBe(true);
    expect(kept).toBeGreaterThan(0);
    expect(await exited).toBe(0);
    expect(log).toMatch(/stopping: no question for \d+ s/);
  }, 120_000);

  it('appends to its log, and starts the log afresh past 1 MB', async () => {
    const { p } = await home(3);
    const dir = join(p.home, 'local/index');
    const log = join(dir, 'keeper.log');
    mkdirSync(dir, { recursive: true });
    const started = async () => {
      expect((await p.h(['frontier', '--json'], auto)).stderr).toMatch(/started an index keeper/);
      await until(async () => (await p.json(['index', '--status'])).keeper, 30_000, 'the keeper');
      expect((await p.h(['index', '--stop'])).code).toBe(0);
      // The last try is remembered for 10 minutes: forgotten, so the next command starts one again.
      rmSync(join(dir, 'auto-start'), { force: true });
    };
    writeFileSync(log, 'an earlier keeper\n');
    await started();
    expect(readFileSync(log, 'utf8')).toMatch(/^an earlier keeper\n/);
    writeFileSync(log, 'x'.repeat((1 << 20) + 1));
    await started();
    expect(statSync(log).size).toBeLessThan(1 << 20);
    expect(readFileSync(log, 'utf8')).not.toMatch(/^x/);
  }, 120_000);

  it('--stop leaves the keeper of holon watch alone; bad flags are usage errors', async () => {
    const { p } = await home(1);
    const w = startWatch(p.dir);
    try {
      await w.waitFor(/index keeper: keeping the work index/);
      const r = await p.h(['index', '--stop']);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(new RegExp(`the index keeper runs in holon watch \\(pid ${w.child.pid}\\)`));
      expect((await p.json(['index', '--status'])).keeper.pid).toBe(w.child.pid);
    } finally {
      await w.stop();
    }
    for (const [args, re] of [[['index', '--stop', '--status'], /--status and --stop do not go together/], [['index', '--status', '--idle-exit', '1h'], /--idle-exit goes with starting a keeper/]] as const) {
      const bad = await holon([...args], { cwd: p.dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(re);
    }
    const soon = await holon(['index', '--idle-exit', 'soon'], { cwd: p.dir });
    expect(soon.code).not.toBe(0);
    expect(soon.stderr).toMatch(/--idle-exit "soon" is not a duration/);
  }, 120_000);
});
