import { usage } from '../../core/errors.js';
import { declaredCapabilities, readCapabilityCache, stateOf } from '../../store/capabilities.js';
import type { Ctx } from '../context.js';
import { actingAgent } from '../holder.js';
import { dim, green, out, printJson, red, table, yellow } from '../output.js';

/**
 * `holon capabilities [--refresh]`: what this environment can do for the agent. Only --refresh runs
 * probes (each with a timeout); the frontier reads the cached results and never probes.
 */
export async function run(ctx: Ctx, _args: string[], opts: { refresh?: boolean; json?: boolean; timeout?: string }): Promise<void> {
  if (opts.timeout !== undefined && !opts.refresh) throw usage('--timeout applies to the probes, which only --refresh runs', 'holon capabilities --refresh --timeout 30s');
  const home = ctx.home();
  const agent = actingAgent(ctx, '');
  const declared = declaredCapabilities(home, agent || null);
  if (opts.refresh) {
    const { refreshCapabilities } = await import('../../store/capability-probe.js');
    const { parseDuration } = await import('../../core/time.js');
    const timeoutMs = opts.timeout ? parseDuration(opts.timeout, '--timeout') : 10_000;
    await refreshCapabilities(home, declared, () => (ctx.env.HOLON_NOW ? ctx.nowMs : Date.now()), timeoutMs);
  }
  const cache = readCapabilityCache(home);
  const rows = declared.map((d) => {
    const s = stateOf(d, cache);
    const r = cache.results[d.name];
    return { name: d.name, available: s.available, status: s.status, detail: s.detail, probe: d.probe, sources: d.sources, checked_at: r && r.probe === d.probe ? r.checked_at : null, output: r && r.probe === d.probe && !r.ok ? r.output : null };
  });
  if (opts.json) return printJson({ agent: agent || null, checked_at: cache.checked_at, capabilities: rows });
  if (!rows.length) return out('no capabilities declared (holon.yaml capabilities:, AGENTS.md capabilities:)');
  const color = (s: string) => (s === 'verified' || s === 'declared' ? green(s) : s === 'failed' ? red(s) : yellow(s));
  out(table([['CAPABILITY', 'STATUS', 'PROBE', 'DETAIL'], ...rows.map((r) => [r.name, color(r.status), r.probe ?? '-', dim(r.detail)])]));
  if (!opts.refresh && rows.some((r) => r.status === 'unverified')) out(dim('run `holon capabilities --refresh` to run the probes'));
}
