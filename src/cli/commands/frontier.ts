import type { Frontier } from '../../core/frontier.js';
import { iso } from '../../core/time.js';
import { frontierFingerprint, graphFingerprint, headerFor, readCachedFrontier, reuseText, stillValid, storeFrontier } from '../../store/frontier-cache.js';
import { listAll } from '../../store/graph-index.js';
import type { Ctx } from '../context.js';
import { holderOf } from '../holder.js';
import { parseLimit } from '../limit.js';
import { note, printJsonText } from '../output.js';

/** `holon frontier`: what the agent may do now, and why not the rest. Reads only (a cache under local/). */
export async function runFrontier(ctx: Ctx, _args: string[], opts: { json?: boolean; limit?: string }): Promise<void> {
  const limit = parseLimit(opts.limit) ?? (opts.json ? undefined : 10);
  const home = ctx.home();
  const agent = ctx.agent();
  const holder = holderOf(ctx, agent);
  const listings = await listAll(home);
  const fp = frontierFingerprint(home, agent, holder, limit, listings);
  const nowIso = iso(ctx.nowMs);
  const prev = readCachedFrontier(home, agent, limit);
  let text: string;
  if (prev && prev.header.fp === fp && stillValid(home, prev.header, ctx.nowMs, ctx.cwd)) {
    text = reuseText(prev, nowIso);
  } else {
    // Loaded only now: a reused answer needs neither the graph nor the evaluator.
    const [{ computeFrontier }, { buildFrontierInput }, { loadListings }] = await Promise.all([
      import('../../core/frontier.js'), import('../../store/frontier-input.js'), import('../../store/graph-index.js'),
    ]);
    const loaded = loadListings(home, listings);
    const gfp = graphFingerprint(home, agent, holder, limit, loaded.digest);
    if (prev && prev.header.gfp === gfp && stillValid(home, prev.header, ctx.nowMs, ctx.cwd)) {
      // Files changed but not what the frontier reads (a progress note): same answer, new file keys.
      text = reuseText(prev, nowIso);
      storeFrontier(home, agent, limit, { ...prev.header, fp }, prev.text);
    } else {
      const { input, problems, used } = buildFrontierInput(home, agent, { holder, nowMs: ctx.nowMs, cwd: ctx.cwd }, loaded);
      const bounds = { from: -Infinity, until: Infinity };
      const f = computeFrontier(input, { limit, bounds });
      text = JSON.stringify({ ...f, problems }, null, 2);
      storeFrontier(home, agent, limit, headerFor(fp, gfp, bounds, used, home, f.now), text);
    }
  }
  if (opts.json) return printJsonText(text);
  const f = JSON.parse(text) as Frontier & { problems: unknown[] };
  const { renderFrontier } = await import('../frontier-render.js');
  renderFrontier(f);
  if (f.problems.length) note(`holon: ${f.problems.length} record(s) could not be read and were left out; run \`holon check\``);
}
