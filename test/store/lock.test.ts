import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withLock } from '../../dist/store/lock.js';
import { ROOT } from '../helpers/cli.js';

// The lock's protocol (src/store/lock.ts): a folder under local/locks, its mtime refreshed every 2 s
// while held, taken over once 4 s old. It is proper-lockfile's, which holon used before: a lock left
// by either kind of holon is seen by the other.
const local = () => mkdtempSync(join(tmpdir(), 'holon-lock-'));
const folder = (dir: string, name: string) => join(dir, 'locks', `${name}.lock`);
const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 50));
};

describe('record locks', () => {
  it('runs the function holding the folder, and removes it after', async () => {
    const dir = local();
    const seen = await withLock(dir, 'main.w-1', () => existsSync(folder(dir, 'main.w-1')));
    expect(seen).toBe(true);
    expect(existsSync(folder(dir, 'main.w-1'))).toBe(false);
  });

  it('waits for a live holder, then reports a conflict and leaves its folder alone', async () => {
    const dir = local();
    mkdirSync(folder(dir, 'x'), { recursive: true });
    await expect(withLock(dir, 'x', () => 'ran', { retries: 2 })).rejects.toMatchObject({ kind: 'conflict' });
    expect(existsSync(folder(dir, 'x'))).toBe(true);
  });

  it('takes over a folder left by a killed process (older than 4 s) at once', async () => {
    const dir = local();
    mkdirSync(folder(dir, 'x'), { recursive: true });
    const old = new Date(Date.now() - 10_000);
    utimesSync(folder(dir, 'x'), old, old);
    expect(await withLock(dir, 'x', () => 'ran', { retries: 0 })).toBe('ran');
    expect(existsSync(folder(dir, 'x'))).toBe(false);
  });

  it('refreshes the folder while held, so a long holder is not taken for a dead one', async () => {
    const dir = local();
    await withLock(dir, 'x', async () => {
      const first = statSync(folder(dir, 'x')).mtimeMs;
      await until(() => statSync(folder(dir, 'x')).mtimeMs !== first);
    });
    expect(existsSync(folder(dir, 'x'))).toBe(false);
  });

  it('a lock taken over while held fails the write, and the new holder keeps its folder', async () => {
    const dir = local();
    const path = folder(dir, 'x');
    const run = withLock(dir, 'x', async () => {
      rmdirSync(path);
      mkdirSync(path);
      // Later than the first refresh (2 s): timers fire in the order they are due.
      await new Promise((r) => setTimeout(r, 2500));
      return 'wrote';
    });
    await expect(run).rejects.toMatchObject({ kind: 'conflict', message: expect.stringContaining('taken over') });
    expect(existsSync(path)).toBe(true);
  });

  it('a synchronous write whose lock was taken over fails, and leaves the new holder\'s folder alone', async () => {
    const dir = local();
    const path = folder(dir, 'x');
    const run = withLock(dir, 'x', () => {
      rmdirSync(path);
      mkdirSync(path);
      const other = new Date(Date.now() - 1000);
      utimesSync(path, other, other);
      return 'wrote';
    });
    await expect(run).rejects.toMatchObject({ kind: 'conflict', message: expect.stringContaining('taken over') });
    expect(existsSync(path)).toBe(true);
  });

  it('a function that throws gives the lock back and its error through', async () => {
    const dir = local();
    await expect(withLock(dir, 'x', () => {
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect(existsSync(folder(dir, 'x'))).toBe(false);
  });

  it.each(['before', 'after'])('a signal another listener handles (added %s the lock) leaves the lock held until the work ends', async (order) => {
    const dir = local();
    const child = spawn(process.execPath, [join(ROOT, 'test/helpers/lock-signal.mjs'), dir, order], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await until(() => out.includes('locked'));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('exit', (c, sig) => r(c ?? sig)));
    expect(out).toContain('graceful stop');
    expect(out).toContain('held after the signal: true');
    expect(out).toContain('given back: true');
    expect(code).toBe(0);
  });

  it('a signal nothing else handles gives the locks back and stops the process by that signal', async () => {
    const dir = local();
    const child = spawn(process.execPath, [join(ROOT, 'test/helpers/lock-signal.mjs'), dir, 'none'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await until(() => out.includes('locked'));
    expect(existsSync(folder(dir, 'x'))).toBe(true);
    child.kill('SIGTERM');
    const how = await new Promise((r) => child.on('exit', (c, sig) => r(sig ?? c)));
    expect(how).toBe('SIGTERM');
    expect(existsSync(folder(dir, 'x'))).toBe(false);
  });

  it('a process that exits holding a lock gives it back', () => {
    const dir = local();
    const lockUrl = pathToFileURL(join(ROOT, 'dist/store/lock.js')).href;
    const script = `import { withLock } from ${JSON.stringify(lockUrl)}; await withLock(${JSON.stringify(dir)}, 'x', () => process.exit(7));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(7);
    expect(existsSync(join(dir, 'locks'))).toBe(true);
    expect(existsSync(folder(dir, 'x'))).toBe(false);
  });
});
