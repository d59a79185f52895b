import { readFileSync, unlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { keeperPaths, liveKeeper, type KeeperInfo } from '../store/index-keeper-files.js';
import type { Home } from '../store/home.js';
import { agentsDir } from '../store/home.js';

/** HOLON_INDEX_SWEEP_MS: how often the keeper's safety-net sweep runs (tests set it short). */
const sweepMs = (env: NodeJS.ProcessEnv) => (Number(env.HOLON_INDEX_SWEEP_MS) > 0 ? Number(env.HOLON_INDEX_SWEEP_MS) : undefined);

export interface IndexKeeper {
  /** True once the keeper serves; false if it declined (not Linux, a network file system) or failed. */
  ready: Promise<boolean>;
  /** Resolves when the keeper's thread has ended (stopped, or it gave up: its home removed). */
  exited: Promise<void>;
  stop(): Promise<void>;
}

/** The live keeper of this home, if another process runs one. */
export function otherKeeper(home: Home): KeeperInfo | null {
  const k = liveKeeper(home.local);
  return typeof k !== 'string' && k.pid !== process.pid ? k : null;
}

/**
 * Starts the index keeper (index-keeper.ts) in a worker thread of this process, unless another process
 * keeps this home's index already or HOLON_INDEX=0. What it says (ready, declined, a new epoch, an
 * error) goes to `log`; `onChange` is called after each batch of work file events. Commands never depend on it: without a keeper they stat every work file.
 */
export function startIndexKeeper(home: Home, log: (line: string) => void, opts: { foreground?: boolean; onChange?: () => void } = {}): IndexKeeper | null {
  if (process.env.HOLON_INDEX === '0') {
    log('index keeper: not started (HOLON_INDEX=0)');
    return null;
  }
  const other = otherKeeper(home);
  if (other) {
    log(`index keeper: process ${other.pid} keeps this home's index already`);
    return null;
  }
  const info = keeperPaths(home.local).info;
  const forget = () => {
    try {
      const now = JSON.parse(readFileSync(info, 'utf8')) as KeeperInfo;
      if (now.pid === process.pid) unlinkSync(info);
    } catch {
      // None, or another keeper's.
    }
  };
  let worker: Worker;
  try {
    worker = new Worker(new URL('./index-keeper.js', import.meta.url), { workerData: { local: home.local, agentsDir: agentsDir(home), sweepMs: sweepMs(process.env) } });
  } catch (err) {
    log(`index keeper: could not start (${(err as Error).message}); commands stat every work file`);
    return null;
  }
  let settle: (ok: boolean) => void = () => undefined;
  const ready = new Promise<boolean>((resolve) => (settle = resolve));
  worker.on('message', (m: { type: string; text: string }) => {
    // Work files changed: not a line of the log, a cue (the frontier answers are refreshed, runtime/frontier-refresh.ts).
    if (m.type === 'changed') return void opts.onChange?.();
    log(`index keeper: ${m.text}`);
    if (m.type === 'ready' || m.type === 'declined' || m.type === 'error') settle(m.type === 'ready');
  });
  worker.on('error', (err) => log(`index keeper stopped: ${err.message}; commands stat every work file`));
  const exited = new Promise<void>((resolve) =>
    worker.on('exit', () => {
      forget();
      settle(false);
      resolve();
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
