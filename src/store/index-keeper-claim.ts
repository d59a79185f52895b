import { mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { folderKey, keeperPaths, liveHost } from './index-keeper-files.js';
import { withLock } from './lock.js';
import { processStart } from './pid.js';

/**
 * Makes this process the host of the home's keeper: null when it is, else the pid of the live process
 * that is (or is starting to be). Checked and written under a lock, so of two processes starting a
 * keeper at once (two commands that each found none, `holon watch` and `holon index`) one goes on. A
 * host.json whose process is gone, or that names another folder (copied with a home), is taken over.
 */
export async function claimHost(local: string): Promise<number | null> {
  const paths = keeperPaths(local);
  mkdirSync(paths.dir, { recursive: true });
  return withLock(local, 'index-keeper', () => {
    const other = liveHost(local);
    if (other !== null) return other;
    writeFileAtomic(paths.host, JSON.stringify({ pid: process.pid, dir: folderKey(paths.dir), start: processStart(process.pid) }) + '\n', join(local, 'tmp'));
    return null;
  });
}

/** Forgets this process's claim and keeper.json, if they are its own (never another's). */
export function releaseHost(local: string): void {
  const paths = keeperPaths(local);
  for (const f of [paths.info, paths.host]) {
    try {
      if ((JSON.parse(readFileSync(f, 'utf8')) as { pid: number }).pid === process.pid) unlinkSync(f);
    } catch {
      // None, or another's.
    }
  }
}
