import { notFound } from '../core/errors.js';
import { readFocus } from '../store/focus.js';
import { locateWork, type WorkRef } from '../store/work-store.js';
import type { OpsCtx } from './context.js';

/**
 * The WorkItem an operation is about: the given id (or unique prefix), else the acting agent's focus.
 * The CLI, the MCP server and the dashboard share it. With an id, the acting agent only orders the
 * search (its own items first), so a home with several agents and no default still finds the item.
 */
export function resolveItem(ctx: OpsCtx, id: string | undefined | null): WorkRef {
  const home = ctx.home();
  if (id) return locateWork(home, id, ctx.globals.agent ?? ctx.env.HOLON_AGENT ?? agentIfAny(ctx));
  const agent = ctx.agent();
  const focus = readFocus(home, agent).work_item;
  if (!focus) throw notFound(`agent "${agent}" has no focus and no id was given`, 'pass an id, or pick one first: `holon pick ID` (see `holon frontier`)');
  return locateWork(home, focus, agent);
}

function agentIfAny(ctx: OpsCtx): string | undefined {
  try {
    return ctx.agent();
  } catch {
    return undefined;
  }
}
