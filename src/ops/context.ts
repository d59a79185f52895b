import { parseIso } from '../core/time.js';
import { openHome, resolveAgent, type Home } from '../store/home.js';

/**
 * What every operation gets: where it runs, the clock, who acts, and the home (opened lazily). The
 * CLI's Ctx has this shape; the MCP server builds one with `makeOpsCtx`.
 */
export interface OpsCtx {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The clock: HOLON_NOW when set (tests, replay), else the real time. */
  nowMs: number;
  /** Who acts: HOLON_ACTOR, `operator` when unset. */
  actor: string;
  globals: { home?: string; agent?: string };
  home(): Home;
  agent(): string;
}

/** A context for one call; `nowMs` is read at creation, so a long-lived server makes one per call. */
export function makeOpsCtx(globals: { home?: string; agent?: string }, env: NodeJS.ProcessEnv, cwd: string): OpsCtx {
  let home: Home | undefined;
  let agent: string | undefined;
  const ctx: OpsCtx = {
    cwd,
    env,
    nowMs: env.HOLON_NOW ? parseIso(env.HOLON_NOW, 'HOLON_NOW') : Date.now(),
    actor: env.HOLON_ACTOR || 'operator',
    globals,
    home: () => (home ??= openHome({ home: globals.home, cwd, env })),
    agent: () => (agent ??= resolveAgent(ctx.home(), globals.agent, env)),
  };
  return ctx;
}
