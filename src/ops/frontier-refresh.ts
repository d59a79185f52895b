import { RACY_MS } from '../store/cache-file.js';
import { listAgents, type Home } from '../store/home.js';
import { trace } from '../store/trace.js';
import type { OpsCtx } from './context.js';
import { frontierParts } from './frontier.js';

/**
 * While an index keeper runs (`holon index`, `holon watch`), each agent's default frontier answer
 * (`holon frontier --json`, and what `holon pick` reads) is computed again soon after its work files
 * change, so that the next command finds it cached: a `complete`, a new dependency or a `git pull`
 * then costs the keeper's process the evaluation, not the next `pick`. Nothing trusts these answers
 * more than any other: each command checks a cached answer against the files as always
 * (ops/frontier.ts), and one made on files that changed since is not used.
 *
 * A burst of changes (a pull, a runner's writes) is one refresh, SETTLE_MS after its last event.
 * An answer made within RACY_MS of a change is not stored under file keys (cache-file.ts), so one
 * more refresh follows once that window has passed; it reuses the answer (no evaluation) and stores
 * it under the keys the next command's listing will match.
 */

const SETTLE_MS = 50;

export interface FrontierRefresher {
  /** Work files changed (the keeper saw events): refresh soon. */
  changed(): void;
  /** No refresh after this one. */
  stop(): void;
}

/** HOLON_INDEX_REFRESH=0 turns it off (the listing tests, whose traces say which path a command took). */
export function frontierRefresher(home: Home, ctxFor: (agent: string) => OpsCtx, log: (line: string) => void, env: NodeJS.ProcessEnv): FrontierRefresher {
  if (env.HOLON_INDEX_REFRESH === '0') return { changed: () => undefined, stop: () => undefined };
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
        try {
          await frontierParts(ctxFor(agent), {});
          failed.delete(agent);
        } catch (err) {
          // Said once per agent until it works again; the command that asks says why in full.
          const why = `${agent}'s frontier could not be computed: ${(err as Error).message}`;
          if (!failed.has(agent)) log(`index keeper: ${why}`);
          failed.add(agent);
        }
      }
      trace(`frontier answers refreshed${settled ? ' (past the racy window)' : ''}`);
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      schedule(SETTLE_MS, false);
    } else if (!settled) schedule(RACY_MS + 100, true);
  };
  return {
    changed() {
      if (stopped) return;
      if (running) again = true;
      else schedule(SETTLE_MS, false);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
