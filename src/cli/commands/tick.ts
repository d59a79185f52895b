import { tick } from '../../runtime/tick.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { listAgents } from '../../store/home.js';
import { listTimers } from '../../store/timers.js';
import { loadAgentWork } from '../../store/work-index.js';

/** One pass of the runtime, for cron jobs and CI: what it did, and whom it would wake. */
export async function run(ctx: Ctx, _args: string[], opts: { json?: boolean }): Promise<void> {
  const home = ctx.home();
  const agents = ctx.globals.agent || ctx.env.HOLON_AGENT ? [ctx.agent()] : undefined;
  const r = await tick(home, ctx.nowMs, { agents });
  // A malformed timer or item is skipped by the pass: say so, or a cron job would never learn why nothing fired.
  for (const a of agents ?? listAgents(home)) {
    for (const p of [...listTimers(home, a).problems, ...loadAgentWork(home, a).problems]) note(`holon: skipped ${p.file}:${p.line}: ${p.message} (see \`holon check\`)`);
  }
  if (opts.json) return printJson(r);
  const lines: string[] = [];
  for (const t of r.tasks_finished) lines.push(`task ${t.task} finished (exit ${t.exit_code ?? '-'})`);
  for (const c of r.thread_commands_interrupted) lines.push(`thread ${c.thread} command ${c.command} interrupted`);
  for (const f of r.timers_fired) lines.push(`timer ${f.timer} fired${f.missed_count ? ` (${f.missed_count} missed slot(s) collapsed)` : ''}${f.late_ms != null ? `, ${(f.late_ms / 1000).toFixed(1)}s after due` : ''}`);
  for (const e of r.events_admitted) lines.push(`event ${e.event} (${e.source} ${e.resource}) ${e.triggered.length ? `triggered ${e.triggered.map((t) => `${t.wait} of ${t.work_item}`).join(', ')}` : 'matched no wait: nudged the agent'}`);
  for (const x of r.rechecks_expired) lines.push(`wait ${x.wait} of ${x.work_item} expired (recheck_deadline)`);
  for (const w of r.wakes) lines.push(`wake ${w.agent}${w.work_item ? ` on ${w.work_item}` : ''}: ${w.reason}`);
  out(lines.length ? lines.join('\n') : `nothing due at ${r.now}`);
}
