import { invalid } from '../core/errors.js';
import { isBudgetBlocker } from '../core/budget.js';
import { iso, parseIso } from '../core/time.js';
import { block as blockDoc, checkResumeCondition, complete as completeDoc, defer as deferDoc, recordSupersedes, reopen as reopenDoc, supersede as supersedeDoc } from '../core/transitions.js';
import { viewOf, type WorkDoc, type WorkView } from '../core/workitem.js';
import { readEntries } from '../core/body.js';
import { locateWork, mutateWork, readWorkFile, type WorkRef } from '../store/work-store.js';
import { cancelItemTimers } from '../runtime/timers.js';
import { crashPoint } from '../runtime/crash-point.js';
import type { OpsCtx } from './context.js';
import { authorityCheck } from './holder.js';

export interface Transitioned {
  item: WorkView;
  changed: boolean;
  /** Timers of a finished item, cancelled with it. */
  timers_cancelled: string[];
  /** Timers that could not be cancelled now (busy or unreadable). */
  timers_busy: string[];
}

async function apply(ctx: OpsCtx, ref: WorkRef, verb: string, fn: (d: WorkDoc) => WorkDoc): Promise<Transitioned> {
  const authorized = authorityCheck(ctx, verb);
  const { doc, changed } = await mutateWork(ctx.home(), ref, ctx.nowMs, (d) => (authorized(d.item), fn(d)));
  crashPoint('item-done');
  // A finished item's own timers would only wake the agent for nothing: they are cancelled with it.
  const { cancelled, busy } = doc.item.status === 'done' ? await cancelItemTimers(ctx.home(), ref.agent, ref.id, ctx.nowMs) : { cancelled: [], busy: [] };
  return { item: viewOf(doc), changed, timers_cancelled: cancelled, timers_busy: busy };
}

export interface CompleteOptions {
  result?: string;
  evidence?: string[];
  outstanding?: string[];
  successor?: string[];
  /** A reason string for no follow-up (`--no-followup REASON`). */
  followup?: string | boolean;
}

/** Completes with a result and evidence; needs a successor or an explicit no-follow-up reason. */
export async function complete(ctx: OpsCtx, ref: WorkRef, opts: CompleteOptions): Promise<Transitioned> {
  const successors = (opts.successor ?? []).map((s) => {
    const next = locateWork(ctx.home(), s, ref.agent);
    if (next.id === ref.id) throw invalid('an item cannot be its own successor', 'create the follow-up with `holon new` and pass its id');
    if (readWorkFile(next.file, next.id).item.status === 'done') throw invalid(`successor ${next.id} is done: it cannot carry on the work`, 'create the follow-up with `holon new` and pass its id');
    return next.id;
  });
  const noFollowup = typeof opts.followup === 'string' ? opts.followup : null;
  const input = { result: opts.result ?? '', evidence: opts.evidence ?? [], outstanding: opts.outstanding ?? [], successors, noFollowup, actor: ctx.actor, nowIso: iso(ctx.nowMs) };
  return apply(ctx, ref, 'complete', (d) => completeDoc(d, input, readEntries(d.body, 'Evidence').map((e) => e.text)));
}

/** Replaced by another item, keeping the lineage. */
export async function supersede(ctx: OpsCtx, ref: WorkRef, opts: { by: string; reason: string }): Promise<Transitioned & { by: string }> {
  const byRef = locateWork(ctx.home(), opts.by, ref.agent);
  const by = byRef.id;
  // Refusals first (done, itself, no reason, no authority), on the record as it is now: only then does
  // the new item record what it replaces, and the old one get superseded_by (re-checked under its lock).
  const current = readWorkFile(ref.file, ref.id);
  authorityCheck(ctx, 'supersede')(current.item);
  supersedeDoc(current, by, opts.reason, iso(ctx.nowMs));
  await mutateWork(ctx.home(), byRef, ctx.nowMs, (d) => recordSupersedes(d, ref.id, opts.reason, iso(ctx.nowMs)));
  return { ...(await apply(ctx, ref, 'supersede', (d) => supersedeDoc(d, by, opts.reason, iso(ctx.nowMs)))), by };
}

/** Set aside until a resume condition (done:ID, at:ISO, event:RESOURCE, capability:NAME) holds. */
export async function defer(ctx: OpsCtx, ref: WorkRef, opts: { until?: string; when?: string[]; reason: string }): Promise<Transitioned> {
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
  return apply(ctx, ref, 'defer', (d) => deferDoc(d, conds, opts.reason, iso(ctx.nowMs)));
}

/** Blocked by a business obstacle, with the path that recovers from it. */
export function block(ctx: OpsCtx, ref: WorkRef, opts: { reason: string; recovery: string }): Promise<Transitioned> {
  return apply(ctx, ref, 'block', (d) => blockDoc(d, opts.reason, opts.recovery, iso(ctx.nowMs)));
}

export function reopen(ctx: OpsCtx, ref: WorkRef, opts: { reason?: string }): Promise<Transitioned> {
  return apply(ctx, ref, 'reopen', (d) => {
    // An agent that could reopen its own spent budget would have none: that is a person's call.
    if (isBudgetBlocker(d.item.blocker) && ctx.actor.startsWith('agent:')) {
      throw invalid(`${ctx.actor} may not reopen ${d.item.id}: its budget is spent (${d.item.blocker!.reason})`, 'a person reopens it (`holon reopen`) or raises its budget (`holon edit --budget`); ask with `holon notify` or a user_action item');
    }
    return reopenDoc(d, iso(ctx.nowMs), opts.reason ?? '', new Date(ctx.nowMs).toISOString());
  });
}
