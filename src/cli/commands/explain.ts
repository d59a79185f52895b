import { explain } from '../../core/frontier.js';
import { loadFrontierInput } from '../../store/frontier-input.js';
import { readWorkFile } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { renderExplanation } from '../frontier-render.js';
import { holderOf } from '../holder.js';
import { printJson } from '../output.js';
import { targetItem } from '../work-args.js';

/** `holon explain ID`: every check of the frontier, in order, with pass/fail, code and detail. */
export async function runExplain(ctx: Ctx, args: string[], opts: { json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const home = ctx.home();
  const agent = ctx.globals.agent ?? ctx.env.HOLON_AGENT ?? ref.agent;
  const { input } = await loadFrontierInput(home, agent, { holder: holderOf(ctx, agent), nowMs: ctx.nowMs, cwd: ctx.cwd });
  // The graph cache keeps closed items short: explain reads its own item in full (and a record that
  // cannot be parsed reports what is wrong, exit 3).
  const full = readWorkFile(ref.file, ref.id).item;
  input.items = [...input.items.filter((i) => i.id !== ref.id), full];
  const e = explain(input, ref.id);
  if (opts.json) return printJson(e);
  renderExplanation(e, full.title);
}
