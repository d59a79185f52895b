import { usage } from '../../core/errors.js';
import { otherKeeper, startIndexKeeper } from '../../runtime/index-keeper-host.js';
import { makeOpsCtx } from '../../ops/context.js';
import { frontierParts } from '../../ops/frontier.js';
import { frontierRefresher, refreshEnv } from '../../runtime/frontier-refresh.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';

/** `holon index`: the index keeper in the foreground, until SIGINT/SIGTERM; `--status` says who keeps it. */
export async function run(ctx: Ctx, _args: string[], opts: { status?: boolean; json?: boolean }): Promise<void> {
  if (opts.json && !opts.status) throw usage('--json goes with --status', 'holon index --status --json');
  const home = ctx.home();
  if (opts.status) {
    const keeper = otherKeeper(home);
    if (opts.json) printJson({ keeper });
    else out(keeper ? `process ${keeper.pid} keeps the work index (since ${keeper.started_at})` : 'no index keeper runs for this home: commands stat every work file');
    return;
  }
  const log = (line: string) => note(`${new Date().toISOString().slice(11, 23)} ${line}`);
  // Each agent's default frontier answer, computed again soon after its files change (and once now).
  const env = refreshEnv(ctx.env);
  const refresher = frontierRefresher(home, (agent) => frontierParts(makeOpsCtx({ ...ctx.globals, agent }, env, ctx.cwd), {}), log, ctx.env);
  const keeper = startIndexKeeper(home, log, { foreground: true, onChange: refresher.changed });
  if (!keeper || !(await keeper.ready)) {
    refresher.stop();
    await keeper?.stop();
    process.exitCode = 1;
    return;
  }
  refresher.changed();
  let signalled = false;
  const stop = (sig: string) => {
    signalled = true;
    log(`${sig}: stopping`);
    refresher.stop();
    void keeper.stop();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  await keeper.exited;
  // Ended on its own (its home removed): not a clean stop.
  if (!signalled) process.exitCode = 1;
}
