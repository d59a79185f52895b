import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PERSON_LIMIT } from '../core/frontier-codes.js';
import { RACY_MS } from '../store/cache-file.js';
import { listAgents, type Home } from '../store/home.js';
import { markRefreshFailed } from '../store/index-keeper-files.js';
import { trace } from '../store/trace.js';

/**
 * While an index keeper runs (`holon index`, `holon watch`), each agent's default frontier answer
 * (`holon frontier --json`, and what `holon pick` reads) and the view a person sees (`holon frontier`,
 * cut from it) are computed again soon after its work files change, so that the next command finds it cached: a `complete`, a new dependency or a `git pull`
 * then costs the keeper's process (or its child) the evaluation, not the next `pick`. Nothing trusts
 * these answers more than any other: each command checks a cached answer against the files as always
 * (ops/frontier.ts), and one made on files that changed since is not used.
 *
 * A burst of changes (a pull, a runner's writes) is one refresh, SETTLE_MS after its last event; a
 * change during a refresh gets one more, SETTLE_MS after it ends. An answer made within RACY_MS of a
 * change is not stored under file keys (cache-file.ts), so one more refresh follows once that window
 * has passed; it reuses the answer (no evaluation) and stores it under the keys the next command's
 * listing will match.
 */

const SETTLE_MS = 50;

/** HOLON_INDEX_REFRESH_SETTLE_MS: the wait after a burst (benchmarks set it long, to time a command before the refresh). */
const settleMs = (env: NodeJS.ProcessEnv) => (Number(env.HOLON_INDEX_REFRESH_SETTLE_MS) > 0 ? Number(env.HOLON_INDEX_REFRESH_SETTLE_MS) : SETTLE_MS);

export interface FrontierRefresher {
  /** Work files changed (the keeper saw events): refresh soon. */
  changed(): void;
  /** No refresh after this one. */
  stop(): void;
  /** Whether it refreshes at all (not under HOLON_INDEX_REFRESH=0): the keeper says so to commands (refresh_cwd). */
  active: boolean;
}

/**
 * `refresh(agent)` computes and stores one agent's default answer (`holon index` and `holon watch`
 * both in a child: refreshInChild). HOLON_INDEX_REFRESH=0 turns it off (the listing
 * tests, whose traces say which path a command took).
 */
export function frontierRefresher(home: Home, refresh: (agent: string) => Promise<unknown>, log: (line: string) => void, env: NodeJS.ProcessEnv): FrontierRefresher {
  if (env.HOLON_INDEX_REFRESH === '0') return { changed: () => undefined, stop: () => undefined, active: false };
  const settle = settleMs(env);
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let again = false;
  let stopped = false;
  const failed = new Set<string>();
  const schedule = (ms: number, settled: boolean) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(settled), ms);
    // Never what keeps the process alive.
    timer.unref();
  };
  const run = async (settled: boolean) => {
    timer = null;
    if (stopped) return;
    running = true;
    try {
      for (const agent of listAgents(home)) {
        if (stopped) return;
        try {
          await refresh(agent);
          failed.delete(agent);
        } catch (err) {
          // Said once per agent until it works again; the command that asks says why in full.
          if (!failed.has(agent)) log(`index keeper: ${agent}'s frontier could not be computed: ${(err as Error).message}`);
          failed.add(agent);
        }
      }
      markRefreshFailed(home.local, failed.size > 0);
      trace(`frontier answers refreshed${settled ? ' (past the racy window)' : ''}`);
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      schedule(settle, false);
    } else if (!settled) schedule(RACY_MS + 100, true);
  };
  return {
    active: true,
    changed() {
      if (stopped) return;
      if (running) again = true;
      else schedule(settle, false);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

const BIN = fileURLToPath(new URL('../../bin/holon.js', import.meta.url));

/**
 * A refresh in a child `holon frontier --json` (its output dropped): the watcher's own thread, which
 * serves webhooks and supervises runs, is never held by an evaluation (a second at 50,000 items).
 */
export function refreshInChild(home: Home, cwd: string, env: NodeJS.ProcessEnv): (agent: string) => Promise<void> {
  return (agent) =>
    new Promise((resolve, reject) => {
      // No trace: the child's lines are not the watcher's log (its stderr is read only for a failure).
      const { HOLON_TRACE_INDEX: _trace, ...quiet } = refreshEnv(env);
      // HOLON_INDEX_REFRESHING: its questions to the keeper are no use of it (runtime/index-keeper.ts, idleCheck).
      // The view a person sees (10 a channel), which is cut from the default answer and so brings that
      // up to date first (ops/frontier.ts): both are then ready, for a pick and for a look.
      const child = spawn(process.execPath, [BIN, '--home', home.dir, '--agent', agent, 'frontier', '--json', '--limit', String(PERSON_LIMIT)], { cwd, env: { ...quiet, HOLON_INDEX_REFRESHING: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        if (err.length < 2000) err += d.toString('utf8');
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(err.trim().split('\n')[0] || `exit ${code}`))));
    });
}

/**
 * The environment a refresh runs in: the agent's own holder. A HOLON_ACTOR in the keeper's environment
 * would make it another's, an answer the agent's commands never use.
 */
export function refreshEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { HOLON_ACTOR: _actor, ...out } = env;
  return out;
}
