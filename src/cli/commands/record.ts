import { workItemJson } from '../../core/workitem.js';
import { checkEvidenceOptions, evidence, onReturn, progress, type Recorded } from '../../ops/record.js';
import type { Ctx } from '../context.js';
import { out, printJson } from '../output.js';
import { idAndText } from '../work-args.js';

async function apply(ctx: Ctx, args: string[], opts: { json?: boolean; work?: string }, what: string, op: (ref: ReturnType<typeof idAndText>['ref'], text: string) => Promise<Recorded>) {
  const { ref, text } = idAndText(ctx, args, what, opts.work);
  const { item, changed } = await op(ref, text);
  if (opts.json) return printJson({ ...workItemJson(item), changed });
  out(`${ref.id} ${changed ? `revision ${item.revision}` : 'unchanged'}`);
}

export function runProgress(ctx: Ctx, args: string[], opts: { onReturn?: string; commit?: string; json?: boolean; work?: string }) {
  return apply(ctx, args, opts, 'progress', (ref, text) => progress(ctx, ref, { text, onReturn: opts.onReturn, commit: opts.commit }));
}

export function runEvidence(ctx: Ctx, args: string[], opts: { commit?: string; run?: string; json?: boolean; work?: string }) {
  checkEvidenceOptions(opts);
  return apply(ctx, args, opts, 'evidence', (ref, text) => evidence(ctx, ref, { text, commit: opts.commit, run: opts.run }));
}

export function runOnReturn(ctx: Ctx, args: string[], opts: { json?: boolean; work?: string }) {
  return apply(ctx, args, opts, 'on-return', (ref, text) => onReturn(ctx, ref, { text }));
}
