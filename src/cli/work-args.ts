import { HolonError, usage } from '../core/errors.js';
import { resolveItem } from '../ops/target.js';
import type { WorkRef } from '../store/work-store.js';
import type { Ctx } from './context.js';

/** The WorkItem a command is about: the given id (or prefix), else the agent's focus (ops/target.ts). */
export const targetItem = (ctx: Ctx, id: string | undefined): WorkRef => resolveItem(ctx, id);

/** The full shape of a WorkItem id: a word like this that names no item is a mistyped id, never text. */
const WORK_ID = /^w-[0-9a-z]{8}$/;

/** The item a word names (an id or a unique prefix, starting `w-`), or null when it names none. */
function itemNamedBy(ctx: Ctx, word: string): WorkRef | null {
  if (!word.startsWith('w-')) return null;
  try {
    return targetItem(ctx, word);
  } catch (err) {
    if (err instanceof HolonError && err.kind === 'notFound' && !WORK_ID.test(word)) return null;
    throw err;
  }
}

/**
 * Splits `[ID] TEXT...` without guessing: the first word is the id only when it names an existing item
 * (or `--work ID` names it); otherwise every word is text for the focused item. An id with no text is
 * a usage error, so a forgotten text never lands as the text of the focus.
 */
export function idAndText(ctx: Ctx, args: string[], what: string, work?: string): { ref: WorkRef; text: string } {
  if (work) return { ref: targetItem(ctx, work), text: args.join(' ') };
  const ref = args.length ? itemNamedBy(ctx, args[0]) : null;
  if (ref) {
    if (args.length < 2) throw usage(`"${args[0]}" names ${ref.id}, but no ${what} text was given`, `holon ${what} ${args[0]} "TEXT"`);
    return { ref, text: args.slice(1).join(' ') };
  }
  return { ref: targetItem(ctx, undefined), text: args.join(' ') };
}

/** The agent and item a record is for: `--work ID` names the item (and so its agent), else the acting agent. */
export function workTarget(ctx: Ctx, work: string | undefined): { agent: string; work_item: string | null } {
  if (!work) return { agent: ctx.agent(), work_item: null };
  const ref = targetItem(ctx, work);
  return { agent: ref.agent, work_item: ref.id };
}
