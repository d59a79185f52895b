import { closeSync, cpSync, existsSync, lstatSync, openSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, tempDir } from '../helpers/cli.js';
import { builtinsLoaded, cryptoIn } from '../helpers/loaded.js';
import { settledProject, startKeeper, startWatch, until } from '../helpers/watch.js';

/**
 * The index keeper (runtime/index-keeper.ts) and the listings made with its help (store/kept-listing.ts):
 * its lifecycle, and the failures it must survive without a stale frontier: a queue that overflowed
 * while it could not read, a keeper killed outright.
 */

const home = settledProject;

// The keeper's answer is waited for up to 60 s (a loaded machine can delay it past the default second):
// these tests check that it answered.
const traced = { HOLON_TRACE_INDEX: '1', HOLON_INDEX_WAIT_MS: '60000' };

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
    await p.h(['frontier', '--json'], traced);
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

  it('sees a work folder swapped for a copy, a record that is a symbolic link, and an agent called constructor', async () => {
    const { p, ids } = await home(3);
    expect((await p.h(['agent', 'add', 'constructor'])).code).toBe(0);
    const k = startKeeper(p.dir);
    await k.ready();
    await p.h(['frontier', '--json'], traced);
    expect((await p.h(['frontier', '--json'], traced)).stderr).toMatch(/main: kept, 0 of 3 stat'ed/);
    const ready = async () => {
      const r = await p.h(['frontier', '--json'], traced);
      expect(r.code, r.stderr).toBe(0);
      // The full evaluation in a copy without local/, so it leaves this home's snapshots alone.
      const copy = join(tempDir(), 'full');
      cpSync(p.dir, copy, { recursive: true, verbatimSymlinks: true, filter: (src) => !src.startsWith(join(p.home, 'local')) });
      const full = await holon(['frontier', '--json'], { cwd: copy, env: { HOLON_INDEX: '0' } });
      const ids = (x: { stdout: string }) => JSON.parse(x.stdout).runnable.map((e: any) => e.id).sort();
      expect(ids(r)).toEqual(ids(full));
      return { ids: ids(r), trace: r.stderr };
    };
    // The agent's folder moved away and a changed copy put in its place, with no command in between:
    // the old folder's watch gets no event for any of it.
    const agentDir = join(p.home, 'agents/main');
    cpSync(agentDir, join(p.dir, 'copy'), { recursive: true });
    const copied = join(p.dir, 'copy/work', `${ids[0]}.md`);
    writeFileSync(copied, readFileSync(copied, 'utf8').replace('status: "open"', 'status: "done"'));
    renameSync(agentDir, join(p.dir, 'old'));
    renameSync(join(p.dir, 'copy'), agentDir);
    const swapped = await ready();
    expect(swapped.ids).not.toContain(ids[0]);
    expect(swapped.trace).toMatch(/main: every file stat'ed/);
    // A record that is a symbolic link to a file elsewhere: a write there gives no event in work/.
    const target = join(p.dir, 'target.md');
    const link = p.workFile(ids[1]);
    renameSync(link, target);
    symlinkSync(target, link);
    expect((await ready()).ids).toContain(ids[1]);
    // Past the racy window, so only its being a link makes the listing look at it again.
    await until(() => Date.now() - Math.max(statSync(target).ctimeMs, lstatSync(link).ctimeMs) > 2100, 30_000, 'the link to settle');
    // An edit of another record stores the snapshot under a new mark: the events of the link's making
    // are then behind it, and only its being a link makes the listing look at it again.
    const other = p.workFile(ids[2]);
    writeFileSync(other, readFileSync(other, 'utf8').replace('title: "item 2"', 'title: "item two"'));
    await ready();
    await until(() => Date.now() - statSync(other).ctimeMs > 2100, 30_000, 'the edit to settle');
    await ready();
    expect((await ready()).trace).toMatch(new RegExp(`main: kept, 1 of 3 stat'ed \\(${ids[1]}\\.md\\)`));
    writeFileSync(target, readFileSync(target, 'utf8').replace('status: "open"', 'status: "done"'));
    const linked = await ready();
    expect(linked.ids).not.toContain(ids[1]);
    expect(linked.trace).toMatch(/main: kept/);
    await k.stop();
  }, 120_000);

  /** A settled home of `n` items, a keeper for it, and its first answer evaluated. */
  const kept = async (n: number) => {
    const { p, ids } = await home(n);
    const k = startKeeper(p.dir);
    await k.ready();
    expect((await p.h(['frontier', '--json'], traced)).stderr).toMatch(/frontier: evaluated/);
    return { p, ids, k };
  };

  it('a reused answer it vouches for hashes no file list: node:crypto is not loaded (the snapshot holds its listing digest)', async () => {
    const { p, ids, k } = await kept(3);
    const again = await p.h(['frontier', '--json'], traced);
    expect(again.stderr).toMatch(/main: kept, 0 of 3 stat'ed/);
    expect(again.stderr).toMatch(/frontier: reused \(no file changed\)/);
    const loaded = await builtinsLoaded(['frontier', '--json'], p.dir, { HOLON_AGENT: 'main', HOLON_INDEX_WAIT_MS: '60000' });
    expect(cryptoIn(loaded)).toEqual([]);
    expect(loaded).not.toContain('perf_hooks');
    // Once a file changes, its part of the fingerprint is the snapshot's digest chained with its new
    // numbers: the same answer as without the keeper.
    expect((await p.h(['progress', ids[1], 'a note'])).code).toBe(0);
    const after = await p.h(['frontier', '--json'], traced);
    expect(after.stderr).toMatch(/main: kept, 1 of 3 stat'ed/);
    const full = await p.h(['frontier', '--json'], { HOLON_INDEX: '0' });
    expect(JSON.parse(after.stdout).runnable).toEqual(JSON.parse(full.stdout).runnable);
    await k.stop();
  }, 120_000);

  it('patches the answer after a complete without node:crypto (no listing hashed, the file hashed in JS), as a full evaluation gives it; the next call reuses it by its fingerprint', async () => {
    const { p, ids, k } = await kept(3);
    expect((await p.h(['pick', ids[0]])).code).toBe(0);
    expect((await p.h(['complete', '--result', 'r', '--evidence', 'e', '--no-followup', ids[0]])).code).toBe(0);
    const env = { HOLON_AGENT: 'main', ...traced };
    const patched = await builtinsLoaded(['frontier', '--json'], p.dir, env);
    expect(patched.stderr).toMatch(/main: kept, 1 of 3 stat'ed/);
    expect(patched.stderr).toMatch(/frontier: patched \(1 item evaluated again\)/);
    expect(cryptoIn(patched)).toEqual([]);
    const full = JSON.parse((await p.h(['frontier', '--json'], { HOLON_INDEX: '0' })).stdout);
    // Once the file is past the racy window, a call stores its numbers, and the one after reuses the answer.
    await until(() => Date.now() - statSync(p.workFile(ids[0])).ctimeMs > 2100, 30_000, 'the file to settle');
    await p.h(['frontier', '--json'], traced);
    const reused = await builtinsLoaded(['frontier', '--json'], p.dir, env);
    expect(reused.stderr).toMatch(/main: kept, 0 of 3 stat'ed/);
    expect(reused.stderr).toMatch(/frontier: reused \(no file changed\)/);
    expect(cryptoIn(reused)).toEqual([]);
    const now = JSON.parse((await p.h(['frontier', '--json'], traced)).stdout);
    for (const c of ['runnable', 'not_runnable', 'waiting']) expect(now[c]).toEqual(full[c]);
    expect(now.counts).toEqual(full.counts);
    await k.stop();
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
    // A snapshot made without the keeper is not vouched for, then stored under the keeper's mark once a
    // listing made under its answer finds it equal: from then on the keeper vouches.
    expect((await p.h(['frontier', '--json'], { HOLON_INDEX: '0' })).code).toBe(0);
    expect((await p.h(['frontier', '--json'], traced)).stderr).toMatch(/main: every file stat'ed \(snapshot made without a keeper\)/);
    expect((await p.h(['frontier', '--json'], traced)).stderr).toMatch(/main: kept, 0 of 1 stat'ed/);
    await w.stop();
    expect((await p.json(['index', '--status'])).keeper).toBeNull();
    const status = await p.h(['index', '--status']);
    expect(status.stdout).toMatch(/no index keeper runs for this home/);
    const bad = await p.h(['index', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--json goes with --status/);
  }, 120_000);
});
