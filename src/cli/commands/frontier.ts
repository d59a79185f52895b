import { invalid } from '../../core/errors.js';
import type { Frontier } from '../../core/frontier.js';
import { iso } from '../../core/time.js';
import { cachedFrontier, frontierFingerprint, storeFrontier } from '../../store/frontier-cache.js';
import { listAll } from '../../store/graph-index.js';
import type { Ctx } from '../context.js';
import { holderOf } from '../holder.js';
import { note, out } from '../output.js';

function parseLimit(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw invalid(`--limit "${v}" is not a positive whole number`, 'e.g. --limit 20');
  return n;
}

/** `holon frontier`: what the agent may do now, and why not the rest. Reads only (a cache under local/). */
export async function runFrontier(ctx: Ctx, _args: string[], opts: { json?: boolean; limit?: string }): Promise<void> {
  const limit = parseLimit(opts.limit) ?? (opts.json ? undefined : 10);
  const home = ctx.home();
  const agent = ctx.agent();
  const holder = holderOf(ctx, agent);
  const listings = await listAll(home);
  const fp = frontierFingerprint(home, agent, holder, limit, listings);
  const nowIso = iso(ctx.nowMs);
  let text = cachedFrontier(home, agent, limit, fp, ctx.nowMs, nowIso, ctx.cwd);
  if (text === null) {
    // Loaded only on a miss: a reused answer needs neither the evaluator nor the graph.
    const [{ computeFrontier }, { buildFrontierInput }, { loadListings }] = await Promise.all([
      import('../../core/frontier.js'), import('../../store/frontier-input.js'), import('../../store/graph-index.js'),
    ]);
    const { input, problems, used } = buildFrontierInput(home, agent, { holder, nowMs: ctx.nowMs, cwd: ctx.cwd }, loadListings(home, listings));
    const bounds = { from: -Infinity, until: Infinity };
    const f = computeFrontier(input, { limit, bounds });
    text = JSON.stringify({ ...f, problems }, null, 2);
    storeFrontier(home, agent, limit, fp, bounds, used, f.now, text);
  }
  if (opts.json) return out(text);
  const f = JSON.parse(text) as Frontier & { problems: unknown[] };
  const { renderFrontier } = await import('../frontier-render.js');
  renderFrontier(f);
  if (f.problems.length) note(`holon: ${f.problems.length} record(s) could not be read and were left out; run \`holon check\``);
}
