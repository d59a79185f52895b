import { buildPrime, type PrimeData } from '../core/prime.js';
import { HolonError } from '../core/errors.js';
import type { ResumeContext } from '../core/resume.js';
import { readAgent } from '../store/agents.js';
import { readFocus } from '../store/focus.js';
import { findHomeDir } from '../store/home.js';
import { locateWork } from '../store/work-store.js';
import type { OpsCtx } from './context.js';
import { frontier as frontierOp, type FrontierResult } from './frontier.js';
import { resume } from './resume.js';

export type PrimeResult = PrimeData | { home: false; message: string; fix: string };

const why = (err: unknown) => (err instanceof HolonError ? err.message + (err.hint ? ` (${err.hint.split('\n')[0]})` : '') : String((err as Error)?.message ?? err));

/**
 * What a session starts with: role, focus with its resume context, or a short frontier. Never fails
 * in a home: what cannot be read becomes a note, since a session hook must not break the session.
 */
export async function prime(ctx: OpsCtx): Promise<PrimeResult> {
  try {
    findHomeDir({ home: ctx.globals.home, cwd: ctx.cwd, env: ctx.env });
  } catch (err) {
    if (err instanceof HolonError && err.kind === 'notFound') return { home: false, message: err.message, fix: 'holon init, then holon setup claude (or holon setup codex)' };
    throw err;
  }
  const problems: string[] = [];
  const home = ctx.home();
  let agent: string;
  try {
    agent = ctx.agent();
  } catch (err) {
    return { ...buildPrime({ agent: '(none)', role: '', focus: null, frontier: null, problems: [why(err)] }) };
  }
  let role = '';
  try {
    role = readAgent(home, agent).role;
  } catch (err) {
    problems.push(`AGENTS.md of ${agent} could not be read: ${why(err)}; run holon check`);
  }
  let focus: ResumeContext | null = null;
  const focusId = readFocus(home, agent).work_item;
  if (focusId) {
    try {
      focus = resume(ctx, locateWork(home, focusId, agent));
    } catch (err) {
      problems.push(`the focus ${focusId} could not be read: ${why(err)}`);
    }
  }
  let frontier: FrontierResult | null = null;
  try {
    frontier = await frontierOp(ctx, {});
    if (frontier.problems.length) problems.push(`${frontier.problems.length} record(s) could not be read and were left out; run holon check`);
  } catch (err) {
    problems.push(`the frontier could not be computed: ${why(err)}`);
  }
  return buildPrime({ agent, role, focus, frontier, problems });
}
