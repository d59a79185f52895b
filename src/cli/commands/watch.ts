import { usage } from '../../core/errors.js';
import { parseDuration } from '../../core/time.js';
import { listAgents, resolveAgent, type Home } from '../../store/home.js';
import { acquireWatcher, releaseWatcher } from '../../store/watcher-lock.js';
import { Watcher } from '../../runtime/watch-loop.js';
import { settingsOf } from '../../runtime/run-agent.js';
import { frontierRefresher, refreshInChild } from '../../runtime/frontier-refresh.js';
import type { Ctx } from '../context.js';
import { note, printJson } from '../output.js';

/** How long in-flight runs may finish after SIGINT/SIGTERM (HOLON_WATCH_GRACE_MS overrides, for tests). */
const graceMs = (env: NodeJS.ProcessEnv) => (env.HOLON_WATCH_GRACE_MS ? Number(env.HOLON_WATCH_GRACE_MS) : 10_000);

/** `holon watch`: the loop, until SIGINT/SIGTERM (or one pass with --once). */
export async function run(ctx: Ctx, _args: string[], opts: { listen?: string | boolean; once?: boolean; json?: boolean; sync?: string }): Promise<void> {
  if (opts.json && !opts.once) throw usage('--json prints the runs of one pass: it needs --once', 'holon watch --once --json (a long-running watch logs to stderr; see `holon runs --json`)');
  const home = ctx.home();
  // Only an explicit --agent narrows the watcher (HOLON_AGENT in its environment does not).
  const agents = ctx.globals.agent ? [resolveAgent(home, ctx.globals.agent, {})] : [];
  const listen = opts.listen === true ? home.config.ingress.listen : typeof opts.listen === 'string' ? opts.listen : null;
  const log = (line: string) => note(`${new Date().toISOString().slice(11, 23)} ${line}`);
  // Bad watch settings are refused before this watcher takes the home.
  settingsOf(home);
  const { stalePid } = await acquireWatcher(home, Date.now());
  if (stalePid) log(`took over from a watcher that is gone (pid ${stalePid})`);
  // Retries are judged on HOLON_NOW when it is set (tests and replays with --once).
  const now = ctx.env.HOLON_NOW ? () => ctx.nowMs : undefined;
  const sync = opts.sync ? await startSync(home, agents, parseDuration(opts.sync, '--sync'), log) : null;
  // While the watcher's index keeper runs, each agent's default frontier answer is kept fresh (runtime/frontier-refresh.ts).
  const refresher = opts.once ? null : frontierRefresher(home, refreshInChild(home, ctx.cwd, ctx.env), log, ctx.env);
  const w = new Watcher(home, { agents, once: opts.once, listen, log, now, serves: sync ? (a) => sync.serves(a) : undefined, onRunEnd: sync ? () => void sync.round() : undefined, onIndexChange: refresher?.changed, indexRefreshCwd: refresher?.active ? ctx.cwd : null });
  sync?.start(() => w.requestPass(0));
  try {
    if (opts.once) {
      await w.start();
      await w.idle();
      await w.stop(0);
      if (opts.json) printJson({ runs: w.finished });
      return;
    }
    await new Promise<void>((resolve, reject) => {
      let stopping = false;
      const stop = (sig: string) => {
        if (stopping) return;
        stopping = true;
        log(`${sig}: stopping`);
        w.stop(graceMs(ctx.env)).then(resolve, reject);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
      w.start().then(() => {
        log(`watching ${home.dir}${agents.length ? ` (agents: ${agents.join(', ')})` : ''}; pid ${process.pid}`);
        refresher?.changed();
      }, (err) => {
        stopping = true;
        w.stop(0).finally(() => reject(err));
      });
    });
  } finally {
    refresher?.stop();
    await sync?.stop();
    releaseWatcher(home);
  }
}

/** `--sync EVERY`: the first round decides which agents this watcher serves before any run starts. */
async function startSync(home: Home, agents: string[], everyMs: number, log: (line: string) => void) {
  const { WatchSync } = await import('../../runtime/watch-sync.js');
  const s = new WatchSync(home, () => (agents.length ? agents : listAgents(home)), everyMs, log);
  await s.round();
  return s;
}
