import { HolonError } from '../core/errors.js';
import { stopDecision, type StopInput, type StopVerdict } from '../core/stop-decision.js';
import { readFocus } from '../store/focus.js';
import { findHomeDir } from '../store/home.js';
import { locateWork, readWorkFile } from '../store/work-store.js';
import type { OpsCtx } from './context.js';

/** Gathers what the Stop decision needs; anything that cannot be read lets the stop through. */
export function stopVerdict(ctx: OpsCtx, opts: { stopHookActive: boolean }): StopVerdict {
  const input: StopInput = { stopHookActive: opts.stopHookActive, unavailable: null, agent: null, focusId: null, item: null };
  if (opts.stopHookActive) return stopDecision(input);
  try {
    findHomeDir({ home: ctx.globals.home, cwd: ctx.cwd, env: ctx.env });
    input.agent = ctx.agent();
  } catch (err) {
    input.unavailable = err instanceof HolonError ? err.message : `holon could not read its home: ${(err as Error)?.message ?? err}`;
    return stopDecision(input);
  }
  const home = ctx.home();
  input.focusId = readFocus(home, input.agent).work_item;
  if (input.focusId) {
    try {
      const ref = locateWork(home, input.focusId, input.agent);
      input.item = readWorkFile(ref.file, ref.id).item;
    } catch {
      input.item = null;
    }
  }
  return stopDecision(input);
}
