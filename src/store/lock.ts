import { mkdirSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { conflict } from '../core/errors.js';
import { refusalCode, rethrowFs } from './fs-errors.js';
import { codePath } from './code-paths.js';

/**
 * The record locks. A lock is a folder, `local/locks/NAME.lock`, made with mkdir (atomic: one of two
 * makers gets EEXIST). Its holder refreshes the folder's mtime every STALE_MS / 2 while it holds it; a
 * folder older than STALE_MS was left by a killed process and is taken over.
 *
 * This is proper-lockfile's protocol, and holon used that library until 2026-12-07: a holon of either
 * kind sees the other's locks. It is written out here because the library cost a write command 1.5-2 ms
 * of its ~10 ms above a bare node start (issue 14): every call went through the thread pool (mkdir,
 * utimes and stat to probe the mtime's precision, rmdir), and signal-exit put a handler on ~15 signals.
 * Here the lock is taken and given back with synchronous calls (mkdir and stat; rmdir), and the mtime
 * is compared as stat gives it, so no probe is needed.
 */
const STALE_MS = 4000;
const REFRESH_MS = STALE_MS / 2;
/** Other errors (a lock folder vanishing under us) are retried this many times, then reported. */
const OTHER_ERROR_TRIES = 5;

interface Held {
  path: string;
  /** The folder's mtime as this holder last set or saw it: another value means another process took it. */
  mtimeMs: number;
  /** When that mtime was set or seen (Date.now()): a refresh that keeps failing gives up past STALE_MS. */
  sinceMs: number;
  compromised?: string;
  timer?: ReturnType<typeof setInterval>;
}

/** The locks this process holds: given back on exit and on SIGINT, SIGTERM and SIGHUP. */
const held = new Set<Held>();
let exitHooked = false;

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Removes the folder of every lock still held (the process is going). */
function releaseAll(): void {
  for (const h of held) release(h);
}

/**
 * Like signal-exit, for the three signals that stop a command from a terminal or a supervisor: when
 * nothing else listens for the signal, the locks are given back and the process dies of it as it would
 * have. When something does (`holon watch` stops gracefully, finishing what holds a lock), the locks
 * stay held, and are given back as their work ends or at exit. A lock left by SIGKILL is taken over
 * once stale. Put first (prependListener), so that a `once` listener added before it still counts.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) !== 1) return;
  releaseAll();
  process.removeListener(signal, onSignal);
  process.kill(process.pid, signal);
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', releaseAll);
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.prependListener(s, onSignal);
}

/**
 * One try at the lock: the held lock, or null when a live process holds it. A folder older than
 * STALE_MS is removed and made again, as proper-lockfile does. Two processes taking over the same
 * stale folder at once can both think they hold it (a race this protocol has always had); the one
 * whose folder the other replaced finds out as it gives the lock back (verify) and fails its command.
 */
function tryTake(path: string): Held | null {
  try {
    mkdirSync(path);
    return made(path);
  } catch (err) {
    if (codeOf(err) !== 'EEXIST') throw err;
  }
  if (!clearStale(path)) return null;
  try {
    mkdirSync(path);
  } catch (err) {
    if (codeOf(err) === 'EEXIST') return null; // another process made it first
    throw err;
  }
  return made(path);
}

/** The lock whose folder this process just made; the folder removed again if it cannot be stat'ed. */
function made(path: string): Held {
  try {
    return { path, mtimeMs: statSync(path).mtimeMs, sinceMs: Date.now() };
  } catch (err) {
    try {
      rmdirSync(path);
    } catch {
      // Gone already.
    }
    throw err;
  }
}

/** Whether the folder at `path` is gone now: it was stale and is removed, or was given back meanwhile. False: a live one. */
function clearStale(path: string): boolean {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return true;
    throw err;
  }
  // Real time, not the command's clock (HOLON_NOW): staleness is about live processes.
  if (mtimeMs >= Date.now() - STALE_MS) return false;
  try {
    rmdirSync(path);
  } catch (err) {
    if (codeOf(err) !== 'ENOENT') throw err;
  }
  return true;
}

/** Whether the folder is still this holder's (its mtime the one it set or saw): else `compromised` says why. */
function verify(h: Held): void {
  if (h.compromised) return;
  try {
    if (statSync(h.path).mtimeMs !== h.mtimeMs) h.compromised = 'its folder was replaced by another process';
  } catch (err) {
    if (codeOf(err) === 'ENOENT') h.compromised = 'its folder was removed';
  }
}

/**
 * Every REFRESH_MS while held: the mtime moved on, unless another process took the lock meanwhile. An
 * error of another kind (a busy disk) is tried again at the next refresh, until the lock would look
 * stale to others (as proper-lockfile does).
 */
function refresh(h: Held): void {
  verify(h);
  if (!h.compromised) {
    try {
      const now = new Date();
      utimesSync(h.path, now, now);
      h.mtimeMs = statSync(h.path).mtimeMs;
      h.sinceMs = Date.now();
      return;
    } catch (err) {
      if (codeOf(err) === 'ENOENT') h.compromised = 'its folder was removed';
      else if (Date.now() - h.sinceMs > STALE_MS) h.compromised = `its folder could not be refreshed (${(err as Error).message})`;
      else return;
    }
  }
  clearInterval(h.timer);
}

function release(h: Held): void {
  if (!held.delete(h)) return;
  clearInterval(h.timer);
  verify(h);
  if (h.compromised) return; // the folder is another process's now
  try {
    rmdirSync(h.path);
  } catch {
    // Gone already (taken over as stale): nothing of ours to remove.
  }
}

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
  const retries = opts.retries ?? 400;
  let lock: Held | null = null;
  let others = 0;
  for (let attempt = 0; !lock; attempt++) {
    try {
      lock = tryTake(lockPath);
    } catch (err) {
      if (refusalCode(err)) rethrowFs(err, lockPath, 'take the lock');
      if (++others >= OTHER_ERROR_TRIES) throw err;
    }
    if (lock) break;
    if (attempt >= retries) {
      throw conflict(`could not lock ${name}: another process holds ${lockPath}`, 'another holon process holds it; retry in a moment');
    }
    // 5 ms growing by 1.3x, randomised, at most 150 ms: some 400 tries make about a minute.
    await sleep(Math.min(150, Math.round((1 + Math.random()) * 5 * 1.3 ** attempt)));
  }
  hookExit();
  held.add(lock);
  const taken = lock;
  let result: T | Promise<T>;
  try {
    result = fn();
    // Only a function that waits can hold the lock past a refresh; a short command's writes are
    // synchronous, and never pay for the timer (its first one costs a process some 0.3 ms).
    if (isThenable(result)) {
      taken.timer = setInterval(() => refresh(taken), REFRESH_MS);
      taken.timer.unref();
      result = await result;
    }
  } finally {
    // Given back whether `fn` returned or threw; release() first checks the folder is still ours.
    release(taken);
  }
  if (taken.compromised) throw conflict(`lock on ${name} was taken over while writing (${taken.compromised})`, 'retry the command');
  return result;
}

const isThenable = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as Promise<T> | null)?.then === 'function';
