import { invalid } from '../../core/errors.js';
import { computeFrontier, explain, type Frontier } from '../../core/frontier.js';
import { iso } from '../../core/time.js';
import { cachedFrontier, frontierFingerprint, storeFrontier } from '../../store/frontier-cache.js';
import { listAll, loadListings } from '../../store/graph-index.js';
import { buildFrontierInput, loadFrontierInput } from '../../store/frontier-input.js';
import { readWorkFile } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { renderExplanation, renderFrontier } from '../frontier-render.js';
import { holderOf } from '../holder.js';
import { note, out, printJson } from '../output.js';
import { targetItem } from '../work-args.js';

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
    const { input, problems, used } = buildFrontierInput(home, agent, { holder, nowMs: ctx.nowMs, cwd: ctx.cwd }, loadListings(home, listings));
    const bounds = { from: -Infinity, until: Infinity };
    const f = computeFrontier(input, { limit, bounds });
    text = JSON.stringify({ ...f, problems }, null, 2);
    storeFrontier(home, agent, limit, fp, bounds, used, f.now, text);
  }
  if (opts.json) return out(text);
  const f = JSON.parse(text) as Frontier & { problems: unknown[] };
  renderFrontier(f);
  if (f.problems.length) note(`holon: ${f.problems.length} record(s) could not be read and were left out; run \`holon check\``);
}

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
