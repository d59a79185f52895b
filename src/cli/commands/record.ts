import { invalid } from '../../core/errors.js';
import { iso } from '../../core/time.js';
import { addEvidence, addProgress, setOnReturn, viewOf, workItemJson, type WorkDoc } from '../../core/workitem.js';
import { resolveCommit } from '../../store/git.js';
import { mutateWork } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { out, printJson } from '../output.js';
import { authorityCheck } from '../holder.js';
import { idAndText } from '../work-args.js';

async function apply(ctx: Ctx, args: string[], opts: { json?: boolean; work?: string }, what: string, fn: (doc: WorkDoc, text: string) => WorkDoc) {
  const { ref, text } = idAndText(ctx, args, what, opts.work);
  const json = opts.json;
  if (!text.trim()) throw invalid(`the ${what} text is empty`, `holon ${what} [ID] "what happened"`);
  const authorized = authorityCheck(ctx, `write ${what} to`);
  const { doc, changed } = await mutateWork(ctx.home(), ref, ctx.nowMs, (d) => (authorized(d.item), fn(d, text)));
  if (json) return printJson({ ...workItemJson(viewOf(doc)), changed });
  out(`${ref.id} ${changed ? `revision ${doc.item.revision}` : 'unchanged'}`);
}

export function runProgress(ctx: Ctx, args: string[], opts: { onReturn?: string; json?: boolean; work?: string }) {
  return apply(ctx, args, opts, 'progress', (d, text) => {
    const next = addProgress(d, { at: iso(ctx.nowMs), text });
    return opts.onReturn ? setOnReturn(next, opts.onReturn) : next;
  });
}

/** A hex sha as given; anything else (HEAD, a branch, a tag) resolved by git in the current folder. */
function commitOf(ctx: Ctx, given: string | undefined): string | undefined {
  if (!given || /^[0-9a-f]{4,40}$/i.test(given)) return given;
  const sha = resolveCommit(ctx.cwd, given);
  if (!sha) throw invalid(`--commit "${given}" is neither a commit sha nor a revision git resolves here`, 'pass a sha, or a revision of this checkout, e.g. --commit HEAD');
  return sha;
}

export function runEvidence(ctx: Ctx, args: string[], opts: { commit?: string; run?: string; json?: boolean; work?: string }) {
  if (opts.run && /[\]\s]/.test(opts.run)) throw invalid(`--run "${opts.run}" must be one word`, 'e.g. --run ci/7731');
  const commit = commitOf(ctx, opts.commit);
  return apply(ctx, args, opts, 'evidence', (d, text) => addEvidence(d, { at: iso(ctx.nowMs), text, commit, run: opts.run }));
}

export function runOnReturn(ctx: Ctx, args: string[], opts: { json?: boolean; work?: string }) {
  return apply(ctx, args, opts, 'on-return', (d, text) => setOnReturn(d, text));
}
