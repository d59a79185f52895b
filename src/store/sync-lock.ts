import { readFileSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { conflict } from '../core/errors.js';
import { describeHolder, holderVerdict, parseHolder, type SyncHolder } from '../core/sync-holder.js';
import { iso } from '../core/time.js';
import { writeFileAtomic } from './atomic-write.js';
import { rethrowFs } from './fs-errors.js';
import type { Home } from './home.js';
import { withLock } from './lock.js';
import { pidAlive } from './pid.js';
import { gitDir, repoTop } from './sync-git.js';

/**
 * One lock per work tree around holon's git work there: `holon sync` and each shared change (shared
 * claims, a watcher's --sync round). Both commit, fetch, merge and push in the same index, so without
 * it a manual sync could find the watcher's merge in progress (MERGE_HEAD) and fail.
 *
 * Why not withLock (store/lock.ts) with this name: its lock is taken over after 4 s without a refresh,
 * and the refresh is a timer on the event loop, which spawnSync blocks for as long as a fetch or push
 * takes. So the sync lock is a holder record instead, `<git dir>/holon/sync-lock.json` (the git dir
 * is per work tree, like the index and MERGE_HEAD; every home in the clone shares it): pid, host,
 * what, a token. Every look at and change of the record happens under withLock's ordinary short lock,
 * held for a few file calls and never across git, so its 4 s stays sound. A holder whose pid is dead
 * on this host is taken over at once (a killed `holon sync` does not block the next); otherwise only
 * a heartbeat (the record's mtime, touched every 30 s while the holder's event loop runs) older than
 * 10 minutes frees it (a holder on another host sharing the folder, a reused pid). A waiter polls,
 * and after 2 minutes (HOLON_SYNC_LOCK_WAIT_MS, for tests) exits 5 naming the holder.
 *
 * Lock order: this is the outermost lock. Shared changes take item and claim locks inside it; never
 * take it while holding another lock. It is not re-entrant: a nested take waits for itself and fails.
 */

const STALE_MS = 10 * 60_000;
const BEAT_MS = 30_000;
const WAIT_MS = 120_000;
const POLL_MS = 150;

export interface SyncLockOptions {
  /** Told once per holder waited for, and on a takeover (a command's stderr, a watcher's log). */
  say?: (line: string) => void;
  waitMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readRecord(file: string): { holder: SyncHolder | null; beatMs: number } {
  try {
    const text = readFileSync(file, 'utf8');
    return { holder: parseHolder(text), beatMs: statSync(file).mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { holder: null, beatMs: 0 };
    rethrowFs(err, file, 'read the sync lock');
  }
}

function waitBound(opts: SyncLockOptions): number {
  if (opts.waitMs !== undefined) return opts.waitMs;
  const env = Number(process.env.HOLON_SYNC_LOCK_WAIT_MS);
  return Number.isFinite(env) && env >= 0 && process.env.HOLON_SYNC_LOCK_WAIT_MS !== '' ? env : WAIT_MS;
}

/** Where the clone's sync lock lives, or null outside a repository (syncTarget then says why). */
export function syncLockDir(home: Home): string | null {
  const top = repoTop(home.dir);
  return top ? join(gitDir(top), 'holon') : null;
}

/** Runs `fn` holding the sync lock of the work tree the home is in (see above). */
export async function withSyncLock<T>(home: Home, what: string, fn: () => T | Promise<T>, opts: SyncLockOptions = {}): Promise<T> {
  const dir = syncLockDir(home);
  if (!dir) return fn();
  const file = join(dir, 'sync-lock.json');
  const me: SyncHolder = { pid: process.pid, host: hostname() || 'localhost', what, token: Math.floor(Math.random() * 0x100000000).toString(16), since: iso(Date.now()) };
  const deadline = Date.now() + waitBound(opts);
  let waitedFor = '';
  for (;;) {
    const r = await withLock(dir, 'sync-lock', () => {
      const { holder, beatMs } = readRecord(file);
      const verdict = holderVerdict(holder, beatMs, { host: me.host, nowMs: Date.now(), staleMs: STALE_MS, alive: pidAlive });
      if (verdict !== 'held') writeFileAtomic(file, JSON.stringify(me) + '\n', join(dir, 'tmp'));
      return { holder, verdict };
    });
    if (r.verdict !== 'held') {
      if (r.holder && r.verdict === 'dead') opts.say?.(`holon: took over the sync lock from ${describeHolder(r.holder)}: that process is gone`);
      if (r.holder && r.verdict === 'stale') opts.say?.(`holon: took over the sync lock from ${describeHolder(r.holder)}: no sign of life for ${STALE_MS / 60_000} minutes`);
      break;
    }
    const h = r.holder!;
    if (Date.now() >= deadline) {
      throw conflict(
        `another holon is doing git work in this clone: ${describeHolder(h)} holds the sync lock (${file}); waited ${Math.round(waitBound(opts) / 1000)} s`,
        `let it finish and try again; if that process hangs, stop it (kill ${h.pid}) and the next holon takes the lock over`,
      );
    }
    if (h.token !== waitedFor) opts.say?.(`holon: waiting for ${describeHolder(h)} to finish its git work in this clone`);
    waitedFor = h.token;
    await sleep(POLL_MS);
  }
  const beat = setInterval(() => {
    try {
      const now = new Date();
      if (parseHolder(readFileSync(file, 'utf8'))?.token === me.token) utimesSync(file, now, now);
    } catch {
      /* gone or unreadable: the release or a takeover decides */
    }
  }, BEAT_MS);
  beat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(beat);
    await withLock(dir, 'sync-lock', () => {
      // Taken over meanwhile (judged stale): that record is someone else's now.
      if (readRecord(file).holder?.token === me.token) unlinkSync(file);
    }).catch(() => undefined);
  }
}
