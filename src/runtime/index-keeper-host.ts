import { Worker } from 'node:worker_threads';
import { claimHost, releaseHost } from '../store/index-keeper-claim.js';
import { conflict } from '../core/errors.js';
import { KEEPER_HOST, liveHost, liveKeeper, type KeeperInfo } from '../store/index-keeper-files.js';
import { pidAlive } from '../store/pid.js';
import { liveWatcher } from '../store/watcher-lock.js';
import type { Home } from '../store/home.js';
import { agentsDir } from '../store/home.js';

/** HOLON_INDEX_SWEEP_MS: how often the keeper's safety-net sweep runs (tests set it short). */
const sweepMs = (env: NodeJS.ProcessEnv) => (Number(env.HOLON_INDEX_SWEEP_MS) > 0 ? Number(env.HOLON_INDEX_SWEEP_MS) : undefined);

export interface IndexKeeper {
  /** True once the keeper serves; false if it declined (not Linux, a network file system) or failed. */
  ready: Promise<boolean>;
  /**
   * Resolves when the keeper's thread has ended: 'idle' when it stopped after `idleExitMs` without a
   * question, else 'ended' (stopped, or it gave up: its home removed).
   */
  exited: Promise<'idle' | 'ended'>;
  stop(): Promise<void>;
}

/** The live keeper of this home, if another process runs one. */
export function otherKeeper(home: Home): KeeperInfo | null {
  const k = liveKeeper(home.local);
  return typeof k !== 'string' && k.pid !== process.pid ? k : null;
}

/**
 * Starts the index keeper (index-keeper.ts) in a worker thread of this process, unless another process
 * keeps this home's index already (or is starting to: store/index-keeper-claim.ts) or HOLON_INDEX=0.
 * What it says (ready, declined, a new epoch, an error) goes to `log`; `onChange` is called after each
 * batch of work file events; with `idleExitMs` it stops after that long without a question. Commands
 * never depend on it: without a keeper they stat every work file.
 */
export async function startIndexKeeper(home: Home, log: (line: string) => void, opts: { foreground?: boolean; onChange?: () => void; idleExitMs?: number; takeOver?: boolean; refreshCwd?: string | null } = {}): Promise<IndexKeeper | null> {
  (globalThis as { [KEEPER_HOST]?: boolean })[KEEPER_HOST] = true;
  if (process.env.HOLON_INDEX === '0') {
    log('index keeper: not started (HOLON_INDEX=0)');
    return null;
  }
  let other = otherKeeper(home);
  // A keeper that idles out (one a command started) gives way to holon watch, which keeps it for as
  // long as it runs.
  if (other && opts.takeOver && other.idle_exit_ms && liveWatcherPid(home) !== other.pid) {
    const was = other.pid;
    try {
      await stopKeeper(home);
      log(`index keeper: took over from process ${was} (a keeper that stops when idle)`);
      other = otherKeeper(home);
    } catch (err) {
      log(`index keeper: could not take over from process ${was}: ${(err as Error).message}`);
    }
  }
  if (other) {
    log(`index keeper: process ${other.pid} keeps this home's index already`);
    return null;
  }
  let host: number | null;
  try {
    host = await claimHost(home.local);
  } catch (err) {
    log(`index keeper: could not start (${(err as Error).message}); commands stat every work file`);
    return null;
  }
  if (host !== null) {
    log(`index keeper: process ${host} keeps this home's index already (or is starting to)`);
    return null;
  }
  const forget = () => releaseHost(home.local);
  let worker: Worker;
  try {
    worker = new Worker(new URL('./index-keeper.js', import.meta.url), { workerData: { local: home.local, agentsDir: agentsDir(home), sweepMs: sweepMs(process.env), idleExitMs: opts.idleExitMs ?? null, refreshCwd: opts.refreshCwd ?? null } });
  } catch (err) {
    forget();
    log(`index keeper: could not start (${(err as Error).message}); commands stat every work file`);
    return null;
  }
  let idle = false;
  let settle: (ok: boolean) => void = () => undefined;
  const ready = new Promise<boolean>((resolve) => (settle = resolve));
  worker.on('message', (m: { type: string; text: string }) => {
    // Work files changed: not a line of the log, a cue (the frontier answers are refreshed, runtime/frontier-refresh.ts).
    if (m.type === 'changed') return void opts.onChange?.();
    if (m.type === 'idle') idle = true;
    log(`index keeper: ${m.text}`);
    if (m.type === 'ready' || m.type === 'declined' || m.type === 'error') settle(m.type === 'ready');
  });
  worker.on('error', (err) => log(`index keeper stopped: ${err.message}; commands stat every work file`));
  const exited = new Promise<'idle' | 'ended'>((resolve) =>
    worker.on('exit', () => {
      forget();
      settle(false);
      resolve(idle ? 'idle' : 'ended');
    }),
  );
  // In a watcher the keeper never keeps the process alive on its own; `holon index` is only the keeper.
  if (!opts.foreground) worker.unref();
  return {
    ready,
    exited,
    stop: async () => {
      forget();
      await worker.terminate();
    },
  };
}

/**
 * Stops the process that keeps this home's index (or is starting to), unless it is `holon watch`
 * (stopping the watcher is the user's call): SIGTERM, then waits for it to go. Its pid, or null when
 * none runs.
 */
export async function stopKeeper(home: Home): Promise<number | null> {
  const pid = otherKeeper(home)?.pid ?? liveHost(home.local);
  if (pid === null) return null;
  if (liveWatcherPid(home) === pid) throw conflict(`the index keeper runs in holon watch (pid ${pid})`, `stop the watcher to stop it (kill ${pid})`);
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw conflict(`cannot stop the index keeper (pid ${pid}): ${(err as Error).message}`, 'stop it as the user that started it');
  }
  const until = Date.now() + 10_000;
  while (pidAlive(pid)) {
    if (Date.now() > until) throw conflict(`the index keeper (pid ${pid}) did not stop within 10 s`, `kill -9 ${pid}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return pid;
}

const liveWatcherPid = (home: Home) => liveWatcher(home)?.pid;
