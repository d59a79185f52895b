import type { Frontier } from '../core/frontier.js';
import type { RecordProblem } from '../core/record-codec.js';
import { iso } from '../core/time.js';
import { frontierFingerprint, graphFingerprint, headerFor, readCachedFrontier, reuseText, stillValid, storeFrontier } from '../store/frontier-cache.js';
import { listAll } from '../store/graph-index.js';
import type { OpsCtx } from './context.js';
import { holderOf } from './holder.js';

export type FrontierResult = Frontier & { problems: RecordProblem[] };

/**
 * The frontier of the acting agent as JSON text, reused from the cache under local/ when nothing it
 * reads has changed (so `holon frontier --json` prints it without parsing). Reads only.
 */
export async function frontierText(ctx: OpsCtx, opts: { limit?: number }): Promise<string> {
  const { limit } = opts;
  const home = ctx.home();
  const agent = ctx.agent();
  const holder = holderOf(ctx, agent);
  const listings = listAll(home);
  const fp = frontierFingerprint(home, agent, holder, limit, listings);
  const nowIso = iso(ctx.nowMs);
  const prev = readCachedFrontier(home, agent, limit);
  if (prev && prev.header.fp === fp && stillValid(home, prev.header, ctx.nowMs, ctx.cwd)) return reuseText(prev, nowIso);
  // Loaded only now: a reused answer needs neither the graph nor the evaluator.
  const [{ computeFrontier }, { buildFrontierInput }, { loadListings }] = await Promise.all([
    import('../core/frontier.js'), import('../store/frontier-input.js'), import('../store/graph-index.js'),
  ]);
  const loaded = loadListings(home, listings);
  const gfp = graphFingerprint(home, agent, holder, limit, loaded.digest);
  if (prev && prev.header.gfp === gfp && stillValid(home, prev.header, ctx.nowMs, ctx.cwd)) {
    // Files changed but not what the frontier reads (a progress note): same answer, new file keys.
    storeFrontier(home, agent, limit, { ...prev.header, fp }, prev.text);
    return reuseText(prev, nowIso);
  }
  const { input, problems, used } = buildFrontierInput(home, agent, { holder, nowMs: ctx.nowMs, cwd: ctx.cwd }, loaded);
  const bounds = { from: -Infinity, until: Infinity };
  const f = computeFrontier(input, { limit, bounds });
  const text = JSON.stringify({ ...f, problems }, null, 2);
  storeFrontier(home, agent, limit, headerFor(fp, gfp, bounds, used, home, f.now), text);
  return text;
}

/** The frontier as data: channels, counts computed before any cap, and records that could not be read. */
export async function frontier(ctx: OpsCtx, opts: { limit?: number }): Promise<FrontierResult> {
  return JSON.parse(await frontierText(ctx, opts)) as FrontierResult;
}
