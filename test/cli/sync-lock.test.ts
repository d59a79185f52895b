import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { clones, git } from '../helpers/clones.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A git hook in the clone that freezes holon's git work at a known point until the test releases it:
 * it touches `frozen` and waits for `release`. `merge` freezes in prepare-commit-msg of a merge (the
 * merge is in progress: MERGE_HEAD is there), `push` in pre-push.
 */
function freezeHook(dir: string, base: string, at: 'merge' | 'push') {
  const frozen = join(base, `frozen-${at}`);
  const release = join(base, `release-${at}`);
  const hook = join(dir, '.git/hooks', at === 'merge' ? 'prepare-commit-msg' : 'pre-push');
  const only = at === 'merge' ? '[ "$2" = merge ] || exit 0\n' : '';
  writeFileSync(hook, `#!/bin/sh\n${only}touch '${frozen}'\nwhile [ ! -f '${release}' ]; do sleep 0.05; done\n`);
  chmodSync(hook, 0o755);
  return { frozen, release: () => writeFileSync(release, '') };
}

const started: ChildProcess[] = [];
// A failed test leaves a frozen hook waiting: every process started here goes, with its git and hook.
afterEach(() => {
  for (const p of started.splice(0)) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    try {
      process.kill(-p.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

/** A holon process in its own process group (so SIGKILL takes its git and hook too), with its output. */
function start(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  let err = '';
  let out = '';
  child.stderr!.on('data', (d) => (err += d));
  child.stdout!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, stderr: () => err, stdout: () => out };
}

type Proc = ReturnType<typeof start>;

/** Waits for the condition itself, up to a generous bound; fails early when `proc` exits first. */
async function until(what: string, cond: () => boolean, procs: Proc[] = [], timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    for (const p of procs) if (p.child.exitCode !== null) throw new Error(`exited ${p.child.exitCode} before ${what}:\n${p.stderr()}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** The exit code, waiting up to a generous bound (a hang is a failure, not a stuck test run). */
async function finished(p: Proc, timeoutMs = 60_000): Promise<number | null> {
  await until('the process to exit', () => p.child.exitCode !== null || p.child.signalCode !== null, [], timeoutMs);
  return p.exited;
}

const lockFile = (dir: string) => join(dir, '.git/holon/sync-lock.json');

describe('one sync lock per clone around holon sync and shared changes', () => {
  it('a sync frozen in the middle of its merge holds the clone: a second sync and a shared claim wait for it, then all land on the moving remote', async () => {
    const c = await clones(2);
    await c.must(1, ['new', 'From clone one']);
    await c.must(1, ['sync']);
    await c.must(0, ['new', 'From clone zero']);
    const hook = freezeHook(c.dirs[0], c.base, 'merge');
    const first = start(c.dirs[0], ['sync']);
    try {
      await until('the first sync frozen mid-merge', () => existsSync(hook.frozen), [first]);
      expect(existsSync(join(c.dirs[0], '.git/MERGE_HEAD'))).toBe(true);
      // The remote keeps moving: the frozen sync's push will be rejected and it merges again.
      await c.must(1, ['progress', c.id, 'moved on clone one meanwhile']);
      await c.must(1, ['sync']);
      await c.must(0, ['new', 'Second from clone zero']);
      const second = start(c.dirs[0], ['sync']);
      const claim = start(c.dirs[0], ['claim', c.id, '--sync', '--json'], { HOLON_ACTOR: 'agent:zero' });
      // On the old code these failed here at once: "a merge is in progress".
      const waiting = new RegExp(`waiting for holon sync \\(pid ${first.child.pid} `);
      await until('the second sync waiting for the first', () => waiting.test(second.stderr()), [second, first]);
      await until('the shared claim waiting for the first', () => waiting.test(claim.stderr()), [claim, first]);
      expect(JSON.parse(readFileSync(lockFile(c.dirs[0]), 'utf8'))).toMatchObject({ pid: first.child.pid, what: 'holon sync' });
      hook.release();
      const codes = await Promise.all([finished(first), finished(second), finished(claim)]);
      expect(codes, [first.stderr(), second.stderr(), claim.stderr()].join('\n---\n')).toEqual([0, 0, 0]);
      expect(existsSync(lockFile(c.dirs[0]))).toBe(false);
      expect(existsSync(join(c.dirs[0], '.git/MERGE_HEAD'))).toBe(false);
    } finally {
      hook.release();
    }
    await c.must(0, ['sync']);
    expect(c.git(0, 'status', '--porcelain', '--', '.holon')).toBe('');
    await c.must(1, ['sync']);
    const titles = JSON.parse(await c.must(1, ['list', '--all', '--json'])).items.map((i: { title: string }) => i.title);
    expect(titles).toEqual(expect.arrayContaining(['From clone one', 'From clone zero', 'Second from clone zero']));
    const item = await c.show(1);
    expect(item.claim).toMatchObject({ holder: 'agent:zero' });
    expect(c.read(1)).toContain('moved on clone one meanwhile');
  }, 180_000);

  it('waiting is bounded: past the bound a sync or a shared claim exits 5 naming the holder', async () => {
    const c = await clones(1);
    await c.must(0, ['new', 'To push']);
    const hook = freezeHook(c.dirs[0], c.base, 'push');
    const first = start(c.dirs[0], ['sync']);
    try {
      await until('the sync frozen in its push', () => existsSync(hook.frozen), [first]);
      const env = { HOLON_SYNC_LOCK_WAIT_MS: '300' };
      for (const args of [['sync'], ['claim', c.id, '--sync']]) {
        const r = start(c.dirs[0], args, { ...env, HOLON_ACTOR: 'agent:zero' });
        expect(await finished(r), r.stderr()).toBe(5);
        expect(r.stderr()).toContain(`holon sync (pid ${first.child.pid} on `);
        expect(r.stderr()).toMatch(/holds the sync lock/);
      }
      hook.release();
      expect(await finished(first), first.stderr()).toBe(0);
    } finally {
      hook.release();
    }
    expect((await c.show(0)).claim ?? null).toBeNull();
  }, 120_000);

  it('a sync killed while holding the lock does not block the next one: its dead pid frees the clone at once', async () => {
    const c = await clones(1);
    await c.must(0, ['new', 'Pushed after the kill']);
    const hook = freezeHook(c.dirs[0], c.base, 'push');
    const first = start(c.dirs[0], ['sync']);
    await until('the sync frozen in its push', () => existsSync(hook.frozen), [first]);
    process.kill(-first.child.pid!, 'SIGKILL');
    await finished(first);
    // The killed sync left its holder record behind (nothing ran to remove it).
    expect(JSON.parse(readFileSync(lockFile(c.dirs[0]), 'utf8'))).toMatchObject({ pid: first.child.pid });
    hook.release();
    // A bound of a minute on the wait: a takeover only after the stale time (minutes) fails with exit 5.
    const next = start(c.dirs[0], ['sync', '--json'], { HOLON_SYNC_LOCK_WAIT_MS: '60000' });
    expect(await finished(next, 90_000), next.stderr()).toBe(0);
    expect(next.stderr()).toContain(`took over the sync lock from holon sync (pid ${first.child.pid} `);
    expect(JSON.parse(next.stdout())).toMatchObject({ pushed: true });
    expect(existsSync(lockFile(c.dirs[0]))).toBe(false);
    expect(git(c.remote, 'ls-tree', '-r', '--name-only', 'main').split('\n').filter((f) => /\/work\/.*\.md$/.test(f))).toHaveLength(2);
  }, 120_000);
});
