import { isBudgetBlocker } from './budget.js';
import { invalid, notFound, usage } from './errors.js';
import { checkResource, isLive, waitKey } from './wait-matching.js';
import type { HolonEvent, Wait } from './types.js';
import { appendHistory, type WorkDoc } from './workitem.js';
import { replaceSection } from './body.js';
import { parseIso } from './time.js';
import { assertSafeId } from './ids.js';

/**
 * Pure lifecycle transitions of a WorkItem. Each takes a WorkDoc and returns the next one, or throws
 * HolonError(invalid) to refuse; the store applies them under the record's lock.
 */

function withWaits(doc: WorkDoc, waits: Wait[]): WorkDoc {
  return { ...doc, item: { ...doc.item, waits } };
}

function mapWait(doc: WorkDoc, id: string, fn: (w: Wait) => Wait): WorkDoc {
  return withWaits(doc, doc.item.waits.map((w) => (w.id === id ? fn(w) : w)));
}

const noWait = (doc: WorkDoc, waitId: string) => notFound(`${doc.item.id} has no wait ${waitId}`, `see its waits with \`holon show ${doc.item.id}\``);

function refuseDone(doc: WorkDoc, what: string): void {
  if (doc.item.status === 'done') throw invalid(`${doc.item.id} is done; cannot ${what}`, `create a successor item instead (holon new ... ) or see \`holon show ${doc.item.id}\``);
}

/** Registers a wait. Triggered waits of the item count as handled (resolved): the agent waits anew. */
export function addWait(doc: WorkDoc, wait: Wait, nowIso: string): WorkDoc {
  refuseDone(doc, 'wait on it');
  const waits = doc.item.waits.map((w) => (w.status === 'triggered' ? { ...w, status: 'resolved' as const, resolved_at: nowIso } : w));
  return withWaits(doc, [...waits, wait]);
}

/** An event settles an active wait: triggered, with the event's provenance. No-op when no longer active. */
export function triggerWait(doc: WorkDoc, waitId: string, ev: Pick<HolonEvent, 'id' | 'source' | 'mode' | 'provenance'>, nowIso: string): WorkDoc {
  return mapWait(doc, waitId, (w) =>
    w.status !== 'active' || doc.item.status === 'done'
      ? w
      : { ...w, status: 'triggered', settled_at: nowIso, settled_reason: 'event', settled_by: { event: ev.id, source: ev.source, mode: ev.mode, provenance: ev.provenance } },
  );
}

/** The fallback deadline passed with no matching wake. */
export function expireWait(doc: WorkDoc, waitId: string, nowIso: string): WorkDoc {
  return mapWait(doc, waitId, (w) => (w.status !== 'active' ? w : { ...w, status: 'expired', settled_at: nowIso, settled_reason: 'recheck_deadline' }));
}

/** Cancels one wait (active or triggered) with a reason; refuses a settled one. */
export function cancelWait(doc: WorkDoc, waitId: string, reason: string, nowIso: string): WorkDoc {
  const w = doc.item.waits.find((x) => x.id === waitId);
  if (!w) throw noWait(doc, waitId);
  if (!isLive(w)) return doc;
  return mapWait(doc, waitId, (x) => ({ ...x, status: 'cancelled', settled_at: nowIso, settled_reason: reason }));
}

/** Marks a triggered wait as handled. */
export function resolveWait(doc: WorkDoc, waitId: string, nowIso: string): WorkDoc {
  const w = doc.item.waits.find((x) => x.id === waitId);
  if (!w) throw noWait(doc, waitId);
  if (w.status === 'resolved') return doc;
  if (w.status !== 'triggered') throw invalid(`wait ${waitId} is ${w.status}, not triggered`, 'only a triggered wait can be resolved; cancel an active one with `holon wait --cancel ID`');
  return mapWait(doc, waitId, (x) => ({ ...x, status: 'resolved', resolved_at: nowIso }));
}

/** Makes old continuations ineligible: active waits are cancelled, triggered ones count as handled. */
export function settleLiveWaits(doc: WorkDoc, reason: string, nowIso: string): WorkDoc {
  return withWaits(
    doc,
    doc.item.waits.map((w) =>
      w.status === 'active'
        ? { ...w, status: 'cancelled' as const, settled_at: nowIso, settled_reason: reason }
        : w.status === 'triggered'
          ? { ...w, status: 'resolved' as const, resolved_at: nowIso }
          : w,
    ),
  );
}

export interface CompleteInput {
  result: string;
  evidence: string[];
  outstanding: string[];
  successors: string[];
  noFollowup: string | null;
  actor: string;
  nowIso: string;
}

/** Completion needs delivery: a result, evidence, and a successor or an explicit no-follow-up reason. */
export function complete(doc: WorkDoc, input: CompleteInput, sectionEvidence: string[]): WorkDoc {
  const id = doc.item.id;
  refuseDone(doc, 'complete it again');
  if (!input.result.trim()) throw (input.result ? invalid : usage)(input.result ? '--result is empty' : '--result is missing', `say what was delivered: holon complete ${id} --result "..."`);
  const evidence = input.evidence.length ? input.evidence : sectionEvidence;
  if (!evidence.length) {
    throw invalid(`${id} has no evidence that its objective was met`, `pass --evidence "what proves it" (repeatable), or record it first with \`holon evidence ${id} "..." --commit SHA\``);
  }
  if (input.successors.length && input.noFollowup != null) throw invalid('both --successor and --no-followup were given', 'use one: a successor carries the rest, or --no-followup says why nothing follows');
  if (input.outstanding.length && !input.successors.length) {
    throw invalid(`${id} has outstanding work (${input.outstanding.length}) but no successor`, 'work that says "continue later" is not done: create the follow-up (`holon new ...`) and pass --successor ID, or keep the item open');
  }
  if (!input.successors.length && (input.noFollowup == null || !input.noFollowup.trim())) {
    throw invalid(`say what follows ${id}: neither --successor ID nor --no-followup REASON was given`, 'pass --successor ID (the item that carries on) or --no-followup "why nothing follows"');
  }
  const delivery = { result: input.result.trim(), evidence, outstanding: input.outstanding, completed_at: input.nowIso, completed_by: input.actor };
  const settled = settleLiveWaits(doc, 'work_item_completed', input.nowIso);
  const lines = [
    `Result: ${delivery.result}`,
    '',
    `Completed ${delivery.completed_at} by ${delivery.completed_by}.`,
    '',
    'Evidence:',
    ...evidence.map((e) => `- ${e}`),
  ];
  if (input.outstanding.length) lines.push('', 'Outstanding:', ...input.outstanding.map((o) => `- ${o}`));
  lines.push('', input.successors.length ? `Successors: ${input.successors.join(', ')}` : `No follow-up: ${input.noFollowup!.trim()}`);
  return {
    ...settled,
    body: replaceSection(settled.body, 'Delivery', lines.join('\n')),
    item: {
      ...settled.item,
      status: 'done',
      delivery,
      successors: [...new Set([...settled.item.successors, ...input.successors])],
      no_followup: input.successors.length ? settled.item.no_followup : input.noFollowup!.trim(),
    },
  };
}

/** Replaced by another item: done, lineage kept, waits cancelled `superseded`. */
export function supersede(doc: WorkDoc, by: string, reason: string, nowIso: string): WorkDoc {
  refuseDone(doc, 'supersede it');
  if (by === doc.item.id) throw invalid('an item cannot supersede itself', 'pass --by NEW with the id of the replacing item');
  if (!reason.trim()) throw invalid('--reason is empty', 'say why the new item replaces this one');
  const settled = settleLiveWaits(doc, 'superseded', nowIso);
  const next = { ...settled, item: { ...settled.item, status: 'done' as const, superseded_by: by } };
  return appendHistory(next, { at: nowIso, text: `superseded by ${by}: ${reason.trim()}` });
}

/** The forms of a `resume_when` condition (the frontier reads them). */
export function checkResumeCondition(cond: string): string {
  const m = /^(at|done|event|capability):(.+)$/.exec(cond.trim());
  if (!m) throw invalid(`--when "${cond}" is not a resume condition`, 'use at:ISO, done:ID, event:RESOURCE or capability:NAME, e.g. --when done:w-4f2a9c1k');
  const [, kind, value] = m;
  if (kind === 'at') return `at:${new Date(parseIso(value, '--when at:')).toISOString().replace('.000Z', 'Z')}`;
  if (kind === 'done') return `done:${assertSafeId(value, '--when done:')}`;
  if (kind === 'event') return `event:${checkResource(value, '--when event:')}`;
  if (!/^[A-Za-z0-9_.-]+$/.test(value)) throw invalid(`--when capability:${value}: not a capability name`, 'e.g. --when capability:gpu');
  return `capability:${value}`;
}

/**
 * Deferred until conditions hold; the conditions are kept in `resume_when`, and the time they were set
 * in `resume_since`: an `event:R` condition waits for an event admitted from then on, not one already
 * in the inbox (deferring again, even with the same conditions, waits for new ones). An event admitted
 * in the same second counts: a resume candidate too many is reviewed, one too few is lost work.
 */
export function defer(doc: WorkDoc, conditions: string[], reason: string, nowIso: string): WorkDoc {
  refuseDone(doc, 'defer it');
  if (!conditions.length) throw usage('defer needs a resume condition', 'pass --until ISO or --when COND (at:ISO, done:ID, event:RESOURCE, capability:NAME)');
  if (!reason.trim()) throw invalid('--reason is empty', 'say why the work is deferred');
  const resume_when = [...new Set([...doc.item.resume_when, ...conditions])];
  const next = { ...doc, item: { ...doc.item, status: 'deferred' as const, resume_when, extra: { ...doc.item.extra, resume_since: nowIso } } };
  return appendHistory(next, { at: nowIso, text: `deferred until ${conditions.join(', ')}: ${reason.trim()}` });
}

/** A business blocker: separate from waits; a wake does not clear it, only `reopen` does. */
export function block(doc: WorkDoc, reason: string, recovery: string, nowIso: string): WorkDoc {
  refuseDone(doc, 'block it');
  if (!reason.trim()) throw invalid('--reason is empty', 'say what blocks the work');
  if (!recovery.trim()) throw invalid('--recovery is empty', 'say how the block can be lifted, and by whom');
  const next = { ...doc, item: { ...doc.item, status: 'blocked' as const, blocker: { reason: reason.trim(), recovery: recovery.trim(), since: nowIso } } };
  return appendHistory(next, { at: nowIso, text: `blocked: ${reason.trim()} (recovery: ${recovery.trim()})` });
}

/**
 * Back to open: clears the blocker and the resume conditions (both kept in ## History). `exactIso` is
 * the same instant to the ms: a budget counts afresh from it, and runs after it are told apart from
 * the run before it that shared its second.
 */
export function reopen(doc: WorkDoc, nowIso: string, note = '', exactIso = nowIso): WorkDoc {
  const { item } = doc;
  if (item.status === 'done') throw invalid(`${item.id} is done`, 'a done item stays done (its delivery is the record); create a successor with `holon new`');
  if (item.status === 'open' && !item.blocker) return doc;
  const was = item.blocker ? `blocker "${item.blocker.reason}"` : item.resume_when.length ? `resume_when ${item.resume_when.join(', ')}` : item.status;
  // A budget block reopened grants the same budget afresh: spending counts from now (docs/budgets.md).
  const fresh = isBudgetBlocker(item.blocker);
  const { resume_since: _since, ...kept } = item.extra;
  const extra = fresh ? { ...kept, budget_since: exactIso } : kept;
  const next = { ...doc, item: { ...item, status: 'open' as const, blocker: null, resume_when: [], extra } };
  return appendHistory(next, { at: nowIso, text: `reopened (was ${item.status}; cleared ${was}${fresh ? '; the budget counts afresh from now' : ''})${note ? `: ${note}` : ''}` });
}

/**
 * A timer this item waited on was cancelled: its active waits on it settle with `timer_cancelled`, and
 * the item is blocked until someone acts (a wake could otherwise never come).
 */
export function timerCancelled(doc: WorkDoc, timerId: string, nowIso: string): { doc: WorkDoc; settled: string[] } {
  const key = `timer:${timerId}`;
  const settled = doc.item.waits.filter((w) => w.status === 'active' && waitKey(w) === key).map((w) => w.id);
  if (!settled.length || doc.item.status === 'done') return { doc, settled: [] };
  const waits = doc.item.waits.map((w) => (settled.includes(w.id) ? { ...w, status: 'cancelled' as const, settled_at: nowIso, settled_reason: 'timer_cancelled' } : w));
  const blocker = doc.item.blocker ?? {
    reason: `timer ${timerId} was cancelled while wait ${settled.join(', ')} waited on it`,
    recovery: `register a new wait (holon wait ${doc.item.id} --for ...) and \`holon reopen ${doc.item.id}\`, or complete the item`,
    since: nowIso,
  };
  return { doc: { ...doc, item: { ...doc.item, waits, status: 'blocked', blocker } }, settled };
}

/** The other end of a supersession: the replacing item records what it replaces (idempotent). */
export function recordSupersedes(doc: WorkDoc, old: string, reason: string, nowIso: string): WorkDoc {
  if (doc.item.supersedes.includes(old)) return doc;
  const next = { ...doc, item: { ...doc.item, supersedes: [...doc.item.supersedes, old] } };
  return appendHistory(next, { at: nowIso, text: `supersedes ${old}: ${reason.trim()}` });
}
