import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { conflict } from '../core/errors.js';
import { refusalCode, rethrowFs } from './fs-errors.js';
import { codePath } from './code-paths.js';

/** A lock left by a killed process is taken over after this long (proper-lockfile refreshes live ones). */
const STALE_MS = 4000;
/** Other errors (a lock folder vanishing under us) are retried this many times, then reported. */
const OTHER_ERROR_TRIES = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` holding the lock named `name` (a folder under local/locks, never beside the tracked file,
 * so git and the watcher never see it). Only a lock another process holds is waited for (exit 5 after
 * `retries` tries, about a minute); a refusal of the file system (read-only, full, no permission)
 * fails at once with the path and the cause (exit 3).
 */
export async function withLock<T>(localDir: string, name: string, fn: () => T | Promise<T>, opts: { retries?: number } = {}): Promise<T> {
  codePath('lock');
  const dir = join(localDir, 'locks');
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    rethrowFs(err, dir, 'create the lock folder');
  }
  const lockPath = join(dir, `${name.replace(/[^\w.-]/g, '_')}.lock`);
  let compromised: Error | undefined;
  // Loaded on first use: read-only commands never pay for proper-lockfile and graceful-fs.
  const lockfile = (await import('proper-lockfile')).default;
  const retries = opts.retries ?? 400;
  let release: (() => Promise<void>) | undefined;
  let others = 0;
  for (let attempt = 0; !release; attempt++) {
    try {
      release = await lockfile.lock(lockPath, {
        realpath: false,
        lockfilePath: lockPath,
        stale: STALE_MS,
        retries: 0,
        onCompromised: (err) => {
          compromised = err;
        },
      });
    } catch (err) {
      if (refusalCode(err)) rethrowFs(err, lockPath, 'take the lock');
      const held = (err as NodeJS.ErrnoException).code === 'ELOCKED';
      if (!held && ++others >= OTHER_ERROR_TRIES) throw err;
      if (attempt >= retries) {
        throw conflict(`could not lock ${name}: ${(err as Error).message}`, 'another holon process holds it; retry in a moment');
      }
      // The backoff proper-lockfile used to do for us: 5 ms growing by 1.3x, randomised, at most 150 ms.
      await sleep(Math.min(150, Math.round((1 + Math.random()) * 5 * 1.3 ** attempt)));
    }
  }
  try {
    const result = await fn();
    if (compromised) throw conflict(`lock on ${name} was taken over while writing`, 'retry the command');
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
