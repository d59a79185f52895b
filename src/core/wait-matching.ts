import { invalid } from './errors.js';
import { editDistance } from './ids.js';
import { WAIT_KINDS, type EventSource, type HolonEvent, type Wait, type WaitKind } from './types.js';

/** Longest resource name accepted; it names an outside object, not a document. */
export const MAX_RESOURCE = 512;

/** Refuses a resource that is empty, too long, or has spaces or control characters. */
export function checkResource(resource: string, field = 'resource'): string {
  if (typeof resource !== 'string' || resource === '') throw invalid(`${field} is empty`, 'name the object, e.g. ci:run/7731 or github:acme/app#101');
  if (resource.length > MAX_RESOURCE) throw invalid(`${field} is ${resource.length} characters long (limit ${MAX_RESOURCE})`, 'use a short name for the object, e.g. ci:run/7731');
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(resource)) throw invalid(`${field} "${JSON.stringify(resource).slice(1, -1)}" contains spaces or control characters`, 'resources are one word, e.g. ci:run/7731 (use - or / instead of spaces)');
  return resource;
}

/** The target of a wait: `task:k-...`, `timer:t-...`, `thread:th-...`, `external:ANYTHING`, or `operator`. */
export interface WaitTarget {
  kind: WaitKind;
  resource: string;
}

/** Parses `--for KIND[:RESOURCE]`. A timer without a resource is allowed here (the caller creates one). */
export function parseWaitFor(text: string): WaitTarget {
  const s = String(text ?? '').trim();
  const colon = s.indexOf(':');
  const kind = (colon === -1 ? s : s.slice(0, colon)) as WaitKind;
  const resource = colon === -1 ? '' : s.slice(colon + 1);
  if (!WAIT_KINDS.includes(kind)) {
    throw invalid(`--for "${text}": unknown wait kind "${kind}"`, `use one of ${WAIT_KINDS.map((k) => (k === 'operator' ? k : `${k}:RESOURCE`)).join(', ')}, e.g. --for external:ci:run/7731`);
  }
  if (kind === 'operator') {
    if (resource) throw invalid(`--for "${text}": an operator wait names no resource`, 'use --for operator');
    return { kind, resource: '' };
  }
  if (kind === 'timer' && resource === '') return { kind, resource: '' };
  if (kind === 'thread') {
    if (!/^(th|c)-[0-9a-z]+$/.test(resource)) throw invalid(`--for "${text}" needs a thread id (th-...) or a command id (c-...)`, 'create one with `holon thread create --role ...`, send it a command, then wait with --for thread:th-...');
    return { kind, resource };
  }
  if (kind === 'task' && resource === '') throw invalid(`--for "${text}" needs a task handle`, 'start the command with `holon task run --work ID -- CMD`, then wait with --for task:k-... (the handle it prints)');
  checkResource(resource, `--for ${kind}: resource`);
  if ((kind === 'task' && !/^k-[0-9a-z]+$/.test(resource)) || (kind === 'timer' && !/^t-[0-9a-z]+$/.test(resource))) {
    throw invalid(`--for "${text}": "${resource}" is not a ${kind} ${kind === 'task' ? 'handle (k-...)' : 'id (t-...)'}`, kind === 'task' ? 'start one with `holon task run -- CMD` and wait on the handle it prints' : 'use --for timer --in 2h, or a timer id from `holon timer list`');
  }
  return { kind, resource };
}

/** A wait that still holds a continuation: active, or triggered and not yet handled. */
export const isLive = (w: Pick<Wait, 'status'>) => w.status === 'active' || w.status === 'triggered';

/** The one string a wait and an event are matched on: `kind:resource`, or `operator`. */
export function waitKey(w: Pick<Wait, 'kind' | 'resource'>): string {
  return w.kind === 'operator' ? 'operator' : `${w.kind}:${w.resource}`;
}

/**
 * The key of an event's resource. A resource that starts with a wait kind names it (`task:k-1`,
 * `timer:t-1`, `external:x`, `operator`); any other resource is external (`ci:run/7731`).
 */
export function eventKey(resource: string): string {
  if (resource === 'operator') return 'operator';
  const kind = resource.slice(0, resource.indexOf(':'));
  return (WAIT_KINDS as readonly string[]).includes(kind) && kind !== 'operator' ? resource : `external:${resource}`;
}

/** Which event sources may settle which wait kinds: a webhook cannot pose as a timer or a task. */
const MAY_SETTLE: Record<WaitKind, readonly EventSource[]> = {
  task: ['task'],
  timer: ['timer'],
  thread: ['thread'],
  operator: ['operator'],
  external: ['external', 'agent', 'operator'],
};

export function sourceMaySettle(source: EventSource, kind: WaitKind): boolean {
  return MAY_SETTLE[kind].includes(source);
}

/** Enough of a WorkItem to match waits against. */
export interface MatchItem {
  id: string;
  status: string;
  waits: Wait[];
}

/**
 * The triggered waits an event joins: waits on exactly its resource that an earlier event triggered
 * and whose wake no successful run has consumed yet (`pending`). The event is then part of that wake,
 * never a mere nudge. Waits this event triggered itself are matchWaits'.
 */
export function joinWaits(items: MatchItem[], ev: Pick<HolonEvent, 'id' | 'source' | 'resource' | 'work_item'>, pending: (waitId: string) => boolean): Array<{ work_item: string; wait: string }> {
  const key = eventKey(ev.resource);
  const out: Array<{ work_item: string; wait: string }> = [];
  for (const item of items) {
    if ((ev.work_item && item.id !== ev.work_item) || item.status === 'done') continue;
    for (const w of item.waits) {
      if (w.status === 'triggered' && w.settled_by?.event !== ev.id && waitKey(w) === key && sourceMaySettle(ev.source, w.kind) && pending(w.id)) out.push({ work_item: item.id, wait: w.id });
    }
  }
  return out;
}

/**
 * The waits an event triggers: active waits on exactly the event's resource, of the items it may
 * touch (only `work_item` when the event names one), plus waits this same event already triggered
 * (so admitting it again after a crash reports the same disposition and triggers nothing twice).
 */
export function matchWaits(items: MatchItem[], ev: Pick<HolonEvent, 'id' | 'source' | 'resource' | 'work_item'>): Array<{ work_item: string; wait: string }> {
  const key = eventKey(ev.resource);
  const out: Array<{ work_item: string; wait: string }> = [];
  for (const item of items) {
    if (ev.work_item && item.id !== ev.work_item) continue;
    for (const w of item.waits) {
      const already = w.settled_by?.event === ev.id;
      const live = w.status === 'active' && item.status !== 'done';
      if ((already || live) && waitKey(w) === key && sourceMaySettle(ev.source, w.kind)) out.push({ work_item: item.id, wait: w.id });
    }
  }
  return out;
}

/**
 * Live waits whose key is one edit away from an event's resource (`ci:run/7732` for a wait on
 * `ci:run/7731`): what a mistyped notify most likely meant. Only a hint; matching stays exact.
 */
export function nearWaits(items: Array<{ id: string; waits: Wait[] }>, resource: string): Array<{ work_item: string; key: string }> {
  const key = eventKey(resource);
  const out: Array<{ work_item: string; key: string }> = [];
  for (const i of items) for (const w of i.waits) if (w.status === 'active' && editDistance(waitKey(w), key) === 1) out.push({ work_item: i.id, key: waitKey(w) });
  return out;
}
