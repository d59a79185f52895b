import { EXIT, invalid } from '../../core/errors.js';
import { syncHome, type SyncReport } from '../../store/sync.js';
import { setupGit } from '../../store/sync-setup.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { relPath } from '../render.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function render(r: SyncReport): void {
  const i = r.incoming;
  out(`synced with ${r.remote}/${r.branch}${r.attempts > 1 ? ` (after ${r.attempts - 1} rejected push${r.attempts > 2 ? 'es' : ''})` : ''}`);
  if (r.committed.length) out(`  committed ${plural(r.committed.length, 'file')} of holon's records`);
  if (!i.commits) out('  in:  nothing new');
  else {
    out(`  in:  ${plural(i.commits, 'commit')}, ${plural(i.files.length, 'file')}`);
    for (const n of i.new_items) out(`       new ${n.id}  ${n.title} (${n.agent})`);
    if (i.changed_items.length) out(`       changed ${i.changed_items.join(', ')}`);
    for (const w of i.woken_waits) out(`       woken ${w.work_item} wait ${w.wait} (${w.resource}): ${w.status}`);
    for (const d of i.decisions) out(`       decided ${d.gate} ${d.scope}: ${d.decision}`);
  }
  out(r.pushed ? `  out: ${plural(r.outgoing.commits, 'commit')}, ${plural(r.outgoing.files.length, 'file')}` : '  out: nothing to push');
}

export async function runSync(ctx: Ctx, _args: string[], opts: { remote?: string; retries?: string; json?: boolean }): Promise<void> {
  const retries = opts.retries === undefined ? undefined : Number(opts.retries);
  if (retries !== undefined && (!Number.isInteger(retries) || retries < 1)) throw invalid(`--retries "${opts.retries}" is not a whole number above 0`, 'e.g. --retries 5');
  const r = await syncHome(ctx.home(), { remote: opts.remote, retries, say: note });
  if (opts.json) printJson(r);
  else if (!r.conflicts.length) render(r);
  if (r.conflicts.length) {
    note(`holon: sync stopped: the merge of ${r.remote}/${r.branch} has conflicts in ${r.conflicts.join(', ')}`);
    note('  fix: edit each conflict block (`holon check` lists file, line and field), keep one side, then\n       git add FILES && git commit --no-edit && holon sync   (or git merge --abort)');
    process.exitCode = EXIT.conflict;
  }
}

export function runSetupGit(ctx: Ctx, _args: string[], opts: { dryRun?: boolean; json?: boolean }): void {
  const home = ctx.home();
  const r = setupGit(home.dir, { dryRun: opts.dryRun, required: true });
  if (opts.json) return printJson({ ...r, dry_run: Boolean(opts.dryRun) });
  const verb = opts.dryRun ? 'would write' : 'wrote';
  out(r.attributes.changed ? `${verb} ${relPath(ctx.cwd, r.attributes.file)} (commit it)` : `${relPath(ctx.cwd, r.attributes.file)} already names the merge driver`);
  out(r.config.changed ? `${opts.dryRun ? 'would set' : 'set'} merge.holon.driver in ${r.config.repo}/.git/config:\n  ${r.config.driver}` : 'merge.holon.driver is already set in this clone');
}
