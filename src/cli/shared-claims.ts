import type { Ctx } from './context.js';
import { note } from './output.js';

/**
 * Runs a claim change locally, or, with `claims: shared` in holon.yaml or --sync, so that it counts only
 * once pushed (store/sync-claims). The git machinery loads only in the shared case.
 */
export async function claimChange<T>(ctx: Ctx, sync: boolean | undefined, what: string, fn: () => Promise<T>, files: (r: T) => string[]): Promise<T> {
  if (!sync && ctx.home().config.claims !== 'shared') return fn();
  const { sharedChange } = await import('../store/sync-claims.js');
  return sharedChange(ctx.home(), what, fn, files, { say: note });
}
