import { invalid } from '../../core/errors.js';
import { iso, parseIso } from '../../core/time.js';
import { block, checkResumeCondition, complete, defer, reopen, supersede } from '../../core/transitions.js';
import { viewOf, type WorkDoc } from '../../core/workitem.js';
import { readEntries } from '../../core/body.js';
import { locateWork, mutateWork, readWorkFile, type WorkRef } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { cancelItemTimers } from '../../runtime/timers.js';
import { crashPoint } from '../../runtime/crash-point.js';
import { targetItem } from '../work-args.js';

async function apply(ctx: Ctx, ref: WorkRef, json: boolean | undefined, fn: (d: WorkDoc) => WorkDoc, say: (d: WorkDoc) => string): Promise<void> {
  const { doc, changed } = await mutateWork(ctx.home(), ref, ctx.nowMs, fn);
  crashPoint('item-done');
  // A finished item's own timers would only wake the agent for nothing: they are cancelled with it.
  const { cancelled: timers_cancelled, busy } = doc.item.status === 'done' ? await cancelItemTimers(ctx.home(), ref.agent, ref.id, ctx.nowMs) : { cancelled: [], busy: [] };
  for (const t of busy) note(`holon: timer ${t} of ${ref.id} could not be cancelled now (busy or unreadable); cancel it with \`holon timer cancel ${t}\``);
  if (json) return printJson({ ...viewOf(doc), changed, timers_cancelled });
  out(changed ? say(doc) : `${ref.id} unchanged`);
  if (timers_cancelled.length) note(`cancelled its timers: ${timers_cancelled.join(', ')}`);
}

export async function runComplete(ctx: Ctx, args: string[], opts: { result?: string; evidence?: string[]; outstanding?: string[]; successor?: string[]; followup?: string | boolean; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const successors = (opts.successor ?? []).map((s) => {
    const next = locateWork(ctx.home(), s, ref.agent);
    if (next.id === ref.id) throw invalid('an item cannot be its own successor', 'create the follow-up with `holon new` and pass its id');
    if (readWorkFile(next.file, next.id).item.status === 'done') throw invalid(`successor ${next.id} is done: it cannot carry on the work`, 'create the follow-up with `holon new` and pass its id');
    return next.id;
  });
  const noFollowup = typeof opts.followup === 'string' ? opts.followup : null;
  const input = { result: opts.result ?? '', evidence: opts.evidence ?? [], outstanding: opts.outstanding ?? [], successors, noFollowup, actor: ctx.actor, nowIso: iso(ctx.nowMs) };
  await apply(ctx, ref, opts.json, (d) => complete(d, input, readEntries(d.body, 'Evidence').map((e) => e.text)), (d) => `${ref.id} done (revision ${d.item.revision})`);
}

export async function runSupersede(ctx: Ctx, args: string[], opts: { by: string; reason: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const by = locateWork(ctx.home(), opts.by, ref.agent).id;
  await apply(ctx, ref, opts.json, (d) => supersede(d, by, opts.reason, iso(ctx.nowMs)), () => `${ref.id} superseded by ${by}`);
}

export async function runDefer(ctx: Ctx, args: string[], opts: { until?: string; when?: string[]; reason: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  // done:ID must name an item as the frontier will compare it: the full id of one that exists.
  const conds = (opts.when ?? []).map(checkResumeCondition).map((c) => {
    if (!c.startsWith('done:')) return c;
    const id = locateWork(ctx.home(), c.slice(5), ref.agent).id;
    if (id === ref.id) throw invalid(`--when ${c}: an item cannot wait for itself to be done`, 'name the item it waits for, e.g. --when done:w-4f2a9c1k');
    return `done:${id}`;
  });
  if (opts.until) conds.unshift(`at:${iso(parseIso(opts.until, '--until'))}`);
  // A time already reached would make the item a resume candidate at once: almost surely a typo.
  for (const c of conds) {
    if (c.startsWith('at:') && Date.parse(c.slice(3)) <= ctx.nowMs) throw invalid(`resume time ${c.slice(3)} is already past (now ${iso(ctx.nowMs)})`, 'give a future time, e.g. --until 2026-12-01T09:00:00Z, or keep the item open');
  }
  await apply(ctx, ref, opts.json, (d) => defer(d, conds, opts.reason, iso(ctx.nowMs)), (d) => `${ref.id} deferred (resume_when ${d.item.resume_when.join(', ')})`);
}

export async function runBlock(ctx: Ctx, args: string[], opts: { reason: string; recovery: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  await apply(ctx, ref, opts.json, (d) => block(d, opts.reason, opts.recovery, iso(ctx.nowMs)), () => `${ref.id} blocked`);
}

export async function runReopen(ctx: Ctx, args: string[], opts: { reason?: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  await apply(ctx, ref, opts.json, (d) => reopen(d, iso(ctx.nowMs), opts.reason ?? ''), () => `${ref.id} open`);
}
