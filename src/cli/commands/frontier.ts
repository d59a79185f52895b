import { PERSON_LIMIT } from '../../core/frontier-codes.js';
import { frontierOut, frontierParts, partsText, type FrontierResult } from '../../ops/frontier.js';
import type { Ctx } from '../context.js';
import { parseLimit } from '../limit.js';
import { note, printJsonParts } from '../output.js';

/** `holon frontier`: what the agent may do now, and why not the rest. Reads only (a cache under local/). */
export async function runFrontier(ctx: Ctx, _args: string[], opts: { json?: boolean; limit?: string; all?: boolean }): Promise<void> {
  // A person sees 10 per channel unless asked for more; --json and --all list the channels in full.
  const limit = parseLimit(opts.limit) ?? (opts.json || opts.all ? undefined : PERSON_LIMIT);
  if (opts.json) {
    const { parts, tail } = await frontierOut(ctx, { limit, all: opts.all });
    return printJsonParts(parts, tail);
  }
  const parts = await frontierParts(ctx, { limit, all: opts.all });
  const f = JSON.parse(partsText(parts)) as FrontierResult;
  const { renderFrontier } = await import('../frontier-render.js');
  renderFrontier(f);
  if (f.problems.length) note(`holon: ${f.problems.length} record(s) could not be read and were left out; run \`holon check\``);
}
