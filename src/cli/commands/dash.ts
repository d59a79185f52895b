import { resolveAgent } from '../../store/home.js';
import type { Ctx } from '../context.js';

/** `holon dash`: loads ink and react only here, so no other command pays for them. */
export async function run(ctx: Ctx, _args: string[], opts: { once?: boolean; json?: boolean }): Promise<void> {
  const home = ctx.home();
  const agent = ctx.globals.agent ? resolveAgent(home, ctx.globals.agent, {}) : null;
  let first: string | null = null;
  try {
    first = agent ?? resolveAgent(home, undefined, ctx.env);
  } catch {
    // Several agents and no default: start on the first.
  }
  const { runDash } = await import('../../ui/run-dash.js');
  await runDash({
    home, agent, first, nowMs: ctx.nowMs, cwd: ctx.cwd, actor: ctx.actor, once: Boolean(opts.once), json: Boolean(opts.json),
    color: !ctx.env.NO_COLOR && ctx.env.TERM !== 'dumb', stdout: process.stdout, stdin: process.stdin,
  });
}
