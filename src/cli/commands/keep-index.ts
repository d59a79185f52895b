import { usage } from '../../core/errors.js';
import { humanDuration, parseDuration } from '../../core/time.js';
import { otherKeeper, startIndexKeeper, stopKeeper } from '../../runtime/index-keeper-host.js';
import { frontierRefresher, refreshInChild } from '../../runtime/frontier-refresh.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';

interface Opts {
  status?: boolean;
  stop?: boolean;
  json?: boolean;
  idleExit?: string;
}

/**
 * `holon index`: the index keeper in the foreground, until SIGINT/SIGTERM (or, with --idle-exit, that
 * long without a question); `--status` says who keeps it, `--stop` stops it.
 */
export async function run(ctx: Ctx, _args: string[], opts: Opts): Promise<void> {
  if (opts.json && !opts.status && !opts.stop) throw usage('--json goes with --status or --stop', 'holon index --status --json');
  if (opts.status && opts.stop) throw usage('--status and --stop do not go together', 'holon index --stop');
  if (opts.idleExit !== undefined && (opts.status || opts.stop)) throw usage('--idle-exit goes with starting a keeper', 'holon index --idle-exit 1h');
  const idleExitMs = opts.idleExit === undefined ? undefined : parseDuration(opts.idleExit, '--idle-exit');
  const home = ctx.home();
  if (opts.status) {
    const keeper = otherKeeper(home);
    if (opts.json) printJson({ keeper });
    else if (!keeper) out('no index keeper runs for this home: commands stat every work file');
    else out(`process ${keeper.pid} keeps the work index (since ${keeper.started_at}${keeper.idle_exit_ms ? `; it stops after ${humanDuration(keeper.idle_exit_ms)} without a question` : ''})`);
    return;
  }
  if (opts.stop) {
    const pid = await stopKeeper(home);
    if (opts.json) printJson({ stopped: pid });
    else out(pid === null ? 'no index keeper runs for this home' : `stopped the index keeper (process ${pid})`);
    return;
  }
  const log = (line: string) => note(`${new Date().toISOString().slice(11, 23)} ${line}`);
  // Each agent's default frontier answer, computed again soon after its files change (and once now), in
  // a child: the keeper lives for hours beside the user's work, and an evaluation of a big home would
  // leave its heap grown (at 50,000 items some 60 MB more resident, for as long as it runs).
  const refresher = frontierRefresher(home, refreshInChild(home, ctx.cwd, ctx.env), log, ctx.env);
  const keeper = await startIndexKeeper(home, log, { foreground: true, onChange: refresher.changed, idleExitMs, refreshCwd: refresher.active ? ctx.cwd : null });
  if (!keeper) {
    refresher.stop();
    process.exitCode = 1;
    return;
  }
  // Before it is ready too: a stop while it starts (holon index --stop) still forgets its claim.
  let signalled = false;
  const stop = (sig: string) => {
    signalled = true;
    log(`${sig}: stopping`);
    refresher.stop();
    void keeper.stop();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  if (!(await keeper.ready)) {
    refresher.stop();
    await keeper.stop();
    if (!signalled) process.exitCode = 1;
    return;
  }
  refresher.changed();
  const how = await keeper.exited;
  refresher.stop();
  // Ended on its own (its home removed): not a clean stop; idle past --idle-exit is one.
  if (!signalled && how !== 'idle') process.exitCode = 1;
}
