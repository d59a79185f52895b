import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { startKeeper, startWatch, until } from '../helpers/watch.js';

/**
 * The index keeper (runtime/index-keeper.ts) and the listings made with its help (store/kept-listing.ts):
 * its lifecycle, and the failures it must survive without a stale frontier: a queue that overflowed
 * while it could not read, a keeper killed outright.
 */

async function home(n: number) {
  const p = await project();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await p.create(`item ${i}`));
  // Past the racy window (2 s), so a listing trusts the files' numbers and the keeper alone decides.
  await until(() => ids.every((id) => Date.now() - statSync(p.workFile(id)).ctimeMs > 2100), 30_000, 'files to settle');
  return { p, ids };
}

const traced = { HOLON_TRACE_INDEX: '1' };

describe('the index keeper', () => {
  it('starts a new epoch after an overflow of the inotify queue, so nothing dropped is trusted', async () => {
    const { p, ids } = await home(4);
    const k = startKeeper(p.dir);
    await k.ready();
    // The first listing has no snapshot; the second is vouched for by the keeper.
    expect((await p.h(['frontier', '--json'], traced)).stderr).toMatch(/every file stat'ed \(no snapshot\)/);
    const warm = await p.h(['frontier', '--json'], traced);
    expect(warm.stderr).toMatch(/main: kept, 0 of 4 stat'ed/);
    expect(JSON.parse(warm.stdout).runnable.map((r: any) => r.id)).toContain(ids[0]);

    // The keeper cannot read (stopped) while more events arrive than the kernel queues: it drops the
    // rest, the change to ids[0] among them, and libuv does not pass the overflow notice on.
    const max = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    process.kill(k.proc.pid!, 'SIGSTOP');
    try {
      const work = join(p.home, 'agents/main/work');
      // Two files in turn: the kernel merges an event only with the one queued just before it.
      const fds = [openSync(join(work, 'a.junk'), 'w'), openSync(join(work, 'b.junk'), 'w')];
      for (let i = 0; i < max + 1000; i++) writeSync(fds[i % 2], 'x');
      fds.forEach((fd) => closeSync(fd));
      const f = p.workFile(ids[0]);
      writeFileSync(f, readFileSync(f, 'utf8').replace('status: "open"', 'status: "done"'));
    } finally {
      process.kill(k.proc.pid!, 'SIGCONT');
    }
    await until(() => /a new epoch/.test(k.log()), 60_000, 'the new epoch');
    const after = await p.h(['frontier', '--json'], traced);
    expect(after.stderr).toMatch(/main: every file stat'ed \(too many changes, or another epoch\)/);
    // The new epoch vouches again from then on.
    expect((await p.h(['frontier', '--json'], traced)).stderr).toMatch(/main: kept/);
    const full = await p.h(['frontier', '--json'], { HOLON_INDEX: '0' });
    const ready = (r: { stdout: string }) => JSON.parse(r.stdout).runnable.map((e: any) => e.id).sort();
    expect(ready(after)).not.toContain(ids[0]);
    expect(ready(after)).toEqual(ready(full));
    await k.stop();
  }, 120_000);

  it('killed outright: commands see it is gone and list every file; a new keeper starts', async () => {
    const { p, ids } = await home(2);
    const k = startKeeper(p.dir);
    await k.ready();
    await p.h(['frontier', '--json']);
    k.proc.kill('SIGKILL');
    await k.exited;
    expect(existsSync(join(p.home, 'local/index/keeper.json'))).toBe(true);
    const f = p.workFile(ids[1]);
    writeFileSync(f, readFileSync(f, 'utf8').replace('status: "open"', 'status: "blocked"'));
    const r = await p.h(['frontier', '--json'], traced);
    expect(r.stderr).toMatch(new RegExp(`every file stat'ed \\(the keeper \\(pid ${k.proc.pid}\\) is gone\\)`));
    expect(JSON.parse(r.stdout).runnable.map((e: any) => e.id)).toEqual([ids[0]]);
    expect((await p.json(['index', '--status'])).keeper).toBeNull();
    const again = startKeeper(p.dir);
    await again.ready();
    expect((await p.json(['index', '--status'])).keeper.pid).toBe(again.proc.pid);
    expect(await again.stop()).toBe(0);
    expect(existsSync(join(p.home, 'local/index/keeper.json'))).toBe(false);
  }, 120_000);

  it('stops on its own when its home is removed', async () => {
    const { p } = await home(1);
    const k = startKeeper(p.dir);
    await k.ready();
    rmSync(p.home, { recursive: true, force: true });
    expect(await k.exited).toBe(1);
    expect(k.log()).toMatch(/stopping: .* is gone \(the home was removed\?\)/);
  }, 120_000);

  it('is one per home: a second is refused, and holon watch keeps it while it runs', async () => {
    const { p } = await home(1);
    const w = startWatch(p.dir);
    await w.waitFor(/index keeper: keeping the work index/);
    expect((await p.json(['index', '--status'])).keeper.pid).toBe(w.child.pid);
    const second = startKeeper(p.dir);
    expect(await second.exited).toBe(1);
    expect(second.log()).toMatch(new RegExp(`process ${w.child.pid} keeps this home's index already`));
    expect((await p.h(['frontier', '--json'], traced)).stderr).not.toMatch(/no keeper|gone|no answer/);
    await w.stop();
    expect((await p.json(['index', '--status'])).keeper).toBeNull();
    const status = await p.h(['index', '--status']);
    expect(status.stdout).toMatch(/no index keeper runs for this home/);
    const bad = await p.h(['index', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--json goes with --status/);
  }, 120_000);
});
