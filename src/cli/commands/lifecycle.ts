import { workItemJson } from '../../core/workitem.js';
import { block, complete, defer, reopen, supersede, type Transitioned } from '../../ops/lifecycle.js';
import type { WorkRef } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { targetItem } from '../work-args.js';

function report(ref: WorkRef, json: boolean | undefined, r: Transitioned, say: (r: Transitioned) => string): void {
  for (const t of r.timers_busy) note(`holon: timer ${t} of ${ref.id} could not be cancelled now (busy or unreadable); cancel it with \`holon timer cancel ${t}\``);
  if (json) return printJson({ ...workItemJson(r.item), changed: r.changed, timers_cancelled: r.timers_cancelled });
  out(r.changed ? say(r) : `${ref.id} unchanged`);
  if (r.timers_cancelled.length) note(`cancelled its timers: ${r.timers_cancelled.join(', ')}`);
}

export async function runComplete(ctx: Ctx, args: string[], opts: { result?: string; evidence?: string[]; outstanding?: string[]; successor?: string[]; followup?: string | boolean; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  report(ref, opts.json, await complete(ctx, ref, opts), (r) => `${ref.id} done (revision ${r.item.revision})`);
}

export async function runSupersede(ctx: Ctx, args: string[], opts: { by: string; reason: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const r = await supersede(ctx, ref, opts);
  report(ref, opts.json, r, () => `${ref.id} superseded by ${r.by}`);
}

export async function runDefer(ctx: Ctx, args: string[], opts: { until?: string; when?: string[]; reason: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  report(ref, opts.json, await defer(ctx, ref, opts), (r) => `${ref.id} deferred (resume_when ${r.item.resume_when.join(', ')})`);
}

export async function runBlock(ctx: Ctx, args: string[], opts: { reason: string; recovery: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  report(ref, opts.json, await block(ctx, ref, opts), () => `${ref.id} blocked`);
}

export async function runReopen(ctx: Ctx, args: string[], opts: { reason?: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  report(ref, opts.json, await reopen(ctx, ref, opts), () => `${ref.id} open`);
}
