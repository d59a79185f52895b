import { makeOpsCtx, type OpsCtx } from '../ops/context.js';

/** What every command handler gets: the operations' context (where it runs, the clock, who acts, the home). */
export type Ctx = OpsCtx;

export function makeCtx(globals: { home?: string; agent?: string }, env = process.env, cwd = process.cwd()): Ctx {
  return makeOpsCtx(globals, env, cwd);
}
