import type { Tool } from '../../core/setup-plan.js';
import { setup } from '../../ops/setup.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';

function runFor(tool: Tool) {
  return (ctx: Ctx, _args: string[], opts: { dryRun?: boolean; remove?: boolean; bin?: string; json?: boolean }): void => {
    const r = setup(ctx, tool, opts);
    if (opts.json) return printJson(r);
    const verb = r.dry_run ? 'would ' : '';
    if (!r.changed) out(`holon setup ${tool}: nothing to ${r.remove ? 'remove' : 'change'} in ${r.root}`);
    for (const f of r.files) {
      if (f.action === 'unchanged') continue;
      out(`${verb}${f.action} ${f.file}`);
      for (const c of f.changes) out(`  - ${c}`);
    }
    if (r.dry_run && r.changed) out('(dry run: nothing written)');
    for (const n of r.notes) note(`note: ${n}`);
  };
}

export const runClaude = runFor('claude');
export const runCodex = runFor('codex');
