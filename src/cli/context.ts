import { parseIso } from '../core/time.js';
import { openHome, resolveAgent, type Home } from '../store/home.js';

/** What every command handler gets: where it runs, the clock, who acts, and the home (opened lazily). */
export interface Ctx {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The command's clock: HOLON_NOW when set (tests, replay), else the real time. */
  nowMs: number;
  /** Who acts: HOLON_ACTOR, `operator` when unset. */
  actor: string;
  globals: { home?: string; agent?: string };
  home(): Home;
  agent(): string;
}

export function makeCtx(globals: { home?: string; agent?: string }, env = process.env, cwd = process.cwd()): Ctx {
  let home: Home | undefined;
  let agent: string | undefined;
  const nowMs = env.HOLON_NOW ? parseIso(env.HOLON_NOW, 'HOLON_NOW') : Date.now();
  const ctx: Ctx = {
    cwd,
    env,
    nowMs,
    actor: env.HOLON_ACTOR || 'operator',
    globals,
    home: () => (home ??= openHome({ home: globals.home, cwd, env })),
    agent: () => (agent ??= resolveAgent(ctx.home(), globals.agent, env)),
  };
  return ctx;
}
