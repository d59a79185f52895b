import { invalid } from '../../core/errors.js';
import { iso } from '../../core/time.js';
import { addEvidence, addProgress, setOnReturn, viewOf, type WorkDoc } from '../../core/workitem.js';
import { mutateWork } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { out, printJson } from '../output.js';
import { idAndText } from '../work-args.js';

async function apply(ctx: Ctx, args: string[], json: boolean | undefined, what: string, fn: (doc: WorkDoc, text: string) => WorkDoc) {
  const { ref, text } = idAndText(ctx, args);
  if (!text.trim()) throw invalid(`the ${what} text is empty`, `holon ${what} [ID] "what happened"`);
  const { doc, changed } = await mutateWork(ctx.home(), ref, ctx.nowMs, (d) => fn(d, text));
  if (json) return printJson({ ...viewOf(doc), changed });
  out(`${ref.id} ${changed ? `revision ${doc.item.revision}` : 'unchanged'}`);
}

export function runProgress(ctx: Ctx, args: string[], opts: { onReturn?: string; json?: boolean }) {
  return apply(ctx, args, opts.json, 'progress', (d, text) => {
    const next = addProgress(d, { at: iso(ctx.nowMs), text });
    return opts.onReturn ? setOnReturn(next, opts.onReturn) : next;
  });
}

export function runEvidence(ctx: Ctx, args: string[], opts: { commit?: string; run?: string; json?: boolean }) {
  if (opts.commit && !/^[0-9a-f]{4,40}$/i.test(opts.commit)) throw invalid(`--commit "${opts.commit}" is not a commit sha`, 'pass a hex sha, e.g. --commit $(git rev-parse --short HEAD)');
  if (opts.run && /[\]\s]/.test(opts.run)) throw invalid(`--run "${opts.run}" must be one word`, 'e.g. --run ci/7731');
  return apply(ctx, args, opts.json, 'evidence', (d, text) => addEvidence(d, { at: iso(ctx.nowMs), text, commit: opts.commit, run: opts.run }));
}

export function runOnReturn(ctx: Ctx, args: string[], opts: { json?: boolean }) {
  return apply(ctx, args, opts.json, 'on-return', (d, text) => setOnReturn(d, text));
}
