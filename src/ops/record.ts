import { invalid } from '../core/errors.js';
import { iso } from '../core/time.js';
import { addEvidence, addProgress, setOnReturn, viewOf, type WorkDoc, type WorkView } from '../core/workitem.js';
import { mutateWork, type WorkRef } from '../store/work-store.js';
import { resolveCommit } from '../store/git.js';
import type { OpsCtx } from './context.js';
import { authorityCheck } from './holder.js';

export interface Recorded {
  item: WorkView;
  changed: boolean;
}

async function apply(ctx: OpsCtx, ref: WorkRef, text: string, what: string, fn: (doc: WorkDoc, text: string) => WorkDoc): Promise<Recorded> {
  if (!text.trim()) throw invalid(`the ${what} text is empty`, `holon ${what} [ID] "what happened"`);
  const authorized = authorityCheck(ctx, `write ${what} to`);
  const { doc, changed } = await mutateWork(ctx.home(), ref, ctx.nowMs, (d) => (authorized(d.item), fn(d, text)));
  return { item: viewOf(doc), changed };
}

/** Appends a progress entry (and replaces the on-return note when one is given); `commit`: what it was observed on. */
export function progress(ctx: OpsCtx, ref: WorkRef, opts: { text: string; onReturn?: string; commit?: string }): Promise<Recorded> {
  const commit = commitOf(ctx, opts.commit);
  return apply(ctx, ref, opts.text, 'progress', (d, text) => {
    const next = addProgress(d, { at: iso(ctx.nowMs), text, commit });
    return opts.onReturn ? setOnReturn(next, opts.onReturn) : next;
  });
}

/** Appends an evidence entry, with the commit or run it was observed on. */
export function evidence(ctx: OpsCtx, ref: WorkRef, opts: { text: string; commit?: string; run?: string }): Promise<Recorded> {
  checkEvidenceOptions(opts);
  const commit = commitOf(ctx, opts.commit);
  return apply(ctx, ref, opts.text, 'evidence', (d, text) => addEvidence(d, { at: iso(ctx.nowMs), text, commit, run: opts.run }));
}

/** Checked before the item is even resolved, as the CLI always did. */
export function checkEvidenceOptions(opts: { commit?: string; run?: string }): void {
  if (opts.run && /[\]\s]/.test(opts.run)) throw invalid(`--run "${opts.run}" must be one word`, 'e.g. --run ci/7731');
}

/** Replaces the note that says where work should resume. */
export function onReturn(ctx: OpsCtx, ref: WorkRef, opts: { text: string }): Promise<Recorded> {
  return apply(ctx, ref, opts.text, 'on-return', (d, text) => setOnReturn(d, text));
}

/** A hex sha as given; anything else (HEAD, a branch, a tag) resolved by git in the current folder. */
function commitOf(ctx: OpsCtx, given: string | undefined): string | undefined {
  if (!given || /^[0-9a-f]{4,40}$/i.test(given)) return given;
  const sha = resolveCommit(ctx.cwd, given);
  if (!sha) throw invalid(`--commit "${given}" is neither a commit sha nor a revision git resolves here`, 'pass a sha, or a revision of this checkout, e.g. --commit HEAD');
  return sha;
}
