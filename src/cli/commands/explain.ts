import { explain } from '../../core/frontier.js';
import { loadFrontierInput } from '../../store/frontier-input.js';
import { RecordParseError } from '../../core/record-codec.js';
import type { WorkItem } from '../../core/types.js';
import { readItem } from '../../store/graph-index.js';
import { problemError, readWorkFile } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { renderExplanation } from '../frontier-render.js';
import { holderOf } from '../holder.js';
import { printJson } from '../output.js';
import { targetItem } from '../work-args.js';
import { readRecordText } from '../../store/record-file.js';

function readFullItem(file: string, id: string): WorkItem {
  let text: string;
  try {
    text = readRecordText(file);
  } catch {
    return readWorkFile(file, id).item;
  }
  try {
    return readItem(text, file, id);
  } catch (err) {
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
}

/** `holon explain ID`: every check of the frontier, in order, with pass/fail, code and detail. */
export async function runExplain(ctx: Ctx, args: string[], opts: { json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const home = ctx.home();
  // An agent asked for by name must exist (exit 4, as for `holon frontier`); else the item's own agent.
  const agent = ctx.globals.agent || ctx.env.HOLON_AGENT ? ctx.agent() : ref.agent;
  const { input } = await loadFrontierInput(home, agent, { holder: holderOf(ctx, agent), nowMs: ctx.nowMs, cwd: ctx.cwd });
  // The graph cache keeps closed items short: explain reads its own item in full (and a record that
  // cannot be parsed reports what is wrong, exit 3).
  const full = readFullItem(ref.file, ref.id);
  input.items = [...input.items.filter((i) => i.id !== ref.id), full];
  const e = explain(input, ref.id);
  if (opts.json) return printJson(e);
  renderExplanation(e, full.title);
}
