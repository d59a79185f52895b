import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { conflict } from '../core/errors.js';

/** A lock left by a killed process is taken over after this long (proper-lockfile refreshes live ones). */
const STALE_MS = 4000;

/**
 * Runs `fn` holding the lock named `name` (a folder under local/locks, never beside the tracked file,
 * so git and the watcher never see it). Waits for other holders; fails with exit 5 after ~30 s.
 */
export async function withLock<T>(localDir: string, name: string, fn: () => T | Promise<T>, opts: { retries?: number } = {}): Promise<T> {
  const dir = join(localDir, 'locks');
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, `${name.replace(/[^\w.-]/g, '_')}.lock`);
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  // Loaded on first use: read-only commands never pay for proper-lockfile and graceful-fs.
  const lockfile = (await import('proper-lockfile')).default;
  try {
    release = await lockfile.lock(lockPath, {
      realpath: false,
      lockfilePath: lockPath,
      stale: STALE_MS,
      retries: { retries: opts.retries ?? 400, factor: 1.3, minTimeout: 5, maxTimeout: 150, randomize: true },
      onCompromised: (err) => {
        compromised = err;
      },
    });
  } catch (err) {
    throw conflict(`could not lock ${name}: ${(err as Error).message}`, 'another holon process holds it; retry in a moment');
  }
  try {
    const result = await fn();
    if (compromised) throw conflict(`lock on ${name} was taken over while writing`, 'retry the command');
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
