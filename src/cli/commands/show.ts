import { show } from '../../ops/show.js';
import { workItemJson } from '../../core/workitem.js';
import { fmtTokens } from '../../core/run-record.js';
import type { Ctx } from '../context.js';
import { bold, dim, out, printJson } from '../output.js';
import { relPath } from '../render.js';
import { targetItem } from '../work-args.js';

/** Reads one item; never changes it (reading is not acting). */
export function run(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  const ref = targetItem(ctx, args[0]);
  const { doc, item: view, focus, totals } = show(ctx, ref);
  if (opts.json) return printJson({ ...workItemJson(view), focus, file: ref.file, runs: totals.runs, tokens: totals.tokens, cost_usd: totals.cost_usd });
  const i = view;
  out(`${bold(i.id)}  ${i.title}`);
  out(dim(`status ${i.status} · class ${i.class}${i.action ? ` · action ${i.action}` : ''}${i.role ? ` · role ${i.role}` : ''} · priority ${i.priority ?? '-'} · agent ${i.agent} · revision ${i.revision}${focus ? ' · focus' : ''}`));
  const guards = [i.workspace?.require_worktree != null && `require_worktree ${i.workspace.require_worktree}`, i.freshness?.max_age && `evidence max_age ${i.freshness.max_age}`, i.exclude.length && `exclude ${i.exclude.join(', ')}`].filter(Boolean);
  if (guards.length) out(`guards: ${guards.join(' · ')}`);
  if (i.depends_on.length) out(`depends on: ${i.depends_on.join(', ')}`);
  for (const w of i.waits) {
    const why = w.settled_by && w.settled_reason === 'event' ? `by ${w.settled_by.source} event ${w.settled_by.event}` : w.settled_reason;
    out(`wait ${w.id}: ${w.kind}${w.kind === 'operator' ? '' : ':' + w.resource} ${w.status}${why ? ` (${why})` : ''} — ${w.reason}${w.recheck_at && w.status === 'active' ? `; recheck at ${w.recheck_at}` : ''}`);
  }
  if (i.blocker) out(`blocker: ${i.blocker.reason} — recovery: ${i.blocker.recovery}`);
  if (i.claim) out(`claim: ${i.claim.holder}${i.claim.expires_at ? ` until ${i.claim.expires_at}` : ''}`);
  if (totals.runs) out(`runs: ${totals.runs}${totals.tokens ? `, ${fmtTokens(totals.tokens)}` : ''}${totals.cost_usd !== null ? `, $${totals.cost_usd.toFixed(4)}` : ''} (holon runs --work ${i.id})`);
  out(dim(relPath(ctx.cwd, ref.file)));
  out(doc.body.replace(/^\n+/, '\n').replace(/\s+$/, ''));
}
