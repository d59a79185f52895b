import { notFound } from '../core/errors.js';
import { readFocus } from '../store/focus.js';
import { locateWork, type WorkRef } from '../store/work-store.js';
import type { Ctx } from './context.js';

/** The WorkItem a command is about: the given id (or prefix), else the agent's focus. */
export function targetItem(ctx: Ctx, id: string | undefined): WorkRef {
  const home = ctx.home();
  if (id) return locateWork(home, id, ctx.globals.agent ?? ctx.env.HOLON_AGENT ?? safeAgent(ctx));
  const agent = ctx.agent();
  const focus = readFocus(home, agent).work_item;
  if (!focus) throw notFound(`agent "${agent}" has no focus and no id was given`, 'pass an id, or pick one first: `holon pick ID` (see `holon list`)');
  return locateWork(home, focus, agent);
}

function safeAgent(ctx: Ctx): string | undefined {
  try {
    return ctx.agent();
  } catch {
    return undefined;
  }
}

const ID_SHAPE = /^[a-z]{1,2}-[0-9a-z]{2,}$/;

/**
 * Splits `[ID] TEXT...`: the first word is an id when it names an existing item or looks like one
 * (w-xxxx); otherwise every word is text for the focused item.
 */
export function idAndText(ctx: Ctx, args: string[]): { ref: WorkRef; text: string } {
  if (args.length >= 2) {
    const first = args[0];
    if (ID_SHAPE.test(first)) return { ref: targetItem(ctx, first), text: args.slice(1).join(' ') };
    try {
      return { ref: targetItem(ctx, first), text: args.slice(1).join(' ') };
    } catch {
      // Not an id: the whole line is text.
    }
  }
  return { ref: targetItem(ctx, undefined), text: args.join(' ') };
}

/** The agent and item a record is for: `--work ID` names the item (and so its agent), else the acting agent. */
export function workTarget(ctx: Ctx, work: string | undefined): { agent: string; work_item: string | null } {
  if (!work) return { agent: ctx.agent(), work_item: null };
  const ref = targetItem(ctx, work);
  return { agent: ref.agent, work_item: ref.id };
}
