import { mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { conflict } from '../core/errors.js';
import { iso } from '../core/time.js';
import { writeFileAtomic } from './atomic-write.js';
import type { Home } from './home.js';
import { withLock } from './lock.js';

/** local/watch.pid: who watches this home, since when, and where its ingress listens. */
export interface WatcherInfo {
  pid: number;
  started_at: string;
  listen: string | null;
}

const pidFile = (home: Home) => join(home.local, 'watch.pid');

export { pidAlive } from './pid.js';
import { pidAlive } from './pid.js';

export function readWatcher(home: Home): WatcherInfo | null {
  try {
    const w = JSON.parse(readFileSync(pidFile(home), 'utf8')) as WatcherInfo;
    return typeof w.pid === 'number' ? w : null;
  } catch {
    return null;
  }
}

/** The running watcher of this home, or null (none, or a stale pid file left by a killed one). */
export function liveWatcher(home: Home): WatcherInfo | null {
  const w = readWatcher(home);
  return w && w.pid !== process.pid && pidAlive(w.pid) ? w : null;
}

/**
 * Makes this process the home's only watcher (pid file written under a lock); refuses with exit 5
 * naming the pid of a live one. A pid file whose process is gone is stale and taken over.
 */
export async function acquireWatcher(home: Home, nowMs: number): Promise<{ stalePid: number | null }> {
  mkdirSync(home.local, { recursive: true });
  return withLock(home.local, 'watch', () => {
    const prev = readWatcher(home);
    if (prev && prev.pid !== process.pid && pidAlive(prev.pid)) {
      throw conflict(`holon watch is already running for this home (pid ${prev.pid}, since ${prev.started_at})`, `stop it first (kill ${prev.pid}), or use that one`);
    }
    writeWatcher(home, { pid: process.pid, started_at: iso(nowMs), listen: null });
    return { stalePid: prev && prev.pid !== process.pid ? prev.pid : null };
  });
}

export function writeWatcher(home: Home, info: WatcherInfo): void {
  writeFileAtomic(pidFile(home), JSON.stringify(info) + '\n', join(home.local, 'tmp'));
}

export function releaseWatcher(home: Home): void {
  const w = readWatcher(home);
  if (w && w.pid === process.pid) {
    try {
      unlinkSync(pidFile(home));
    } catch {
      // already gone
    }
  }
}
