import { HolonError, invalid } from '../core/errors.js';
import { checkPayload } from '../core/event-input.js';
import type { HolonEvent } from '../core/types.js';
import { admitEvent } from '../runtime/admission.js';
import { enqueueEvent, type EventInput } from '../store/events.js';
import type { Home } from '../store/home.js';

export interface Delivered {
  event: HolonEvent;
  admitted: boolean;
}

/**
 * Queues the event and admits it at once with the tick's own admission code, so the caller learns its
 * disposition. If admission cannot take the lock quickly, the event stays queued for the next tick.
 */
export async function deliverEvent(home: Home, agent: string, input: EventInput, nowMs: number): Promise<Delivered> {
  const queued = enqueueEvent(home, agent, input, nowMs);
  try {
    const r = await admitEvent(home, agent, queued.id, nowMs, { lockRetries: 10 });
    if (r) return { event: r.event, admitted: true };
  } catch (err) {
    if (!(err instanceof HolonError && err.kind === 'conflict')) throw err;
  }
  return { event: queued, admitted: false };
}

/** Refuses an operator message an agent would forge, or an empty or oversized one; returns the text to send. */
export function checkTell(actor: string, text: string): string {
  // Only a person carries instruction authority: an agent run (HOLON_ACTOR=agent:NAME) must not forge it.
  if (actor.startsWith('agent:')) {
    throw invalid(`${actor} cannot send an operator message: \`holon tell\` carries a person's authority`, 'an agent enqueues its own follow-up with `holon notify RESOURCE --source agent --mode message --payload TEXT`');
  }
  const t = text.trim();
  if (!t) throw invalid('the message is empty', 'holon tell "what you want the agent to know or do"');
  checkPayload(t);
  return t;
}

/** A person's message to an agent (`holon tell`, the dashboard): the only event with instruction authority. */
export async function tellAgent(o: { home: Home; agent: string; work_item: string | null; text: string; actor: string; nowMs: number; via?: string }): Promise<Delivered> {
  const text = checkTell(o.actor, o.text);
  return deliverEvent(o.home, o.agent, { source: 'operator', mode: 'message', resource: 'operator', work_item: o.work_item, payload: text, provenance: `${o.via ?? 'cli:tell'} by ${o.actor}` }, o.nowMs);
}
