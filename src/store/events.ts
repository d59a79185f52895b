import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from './random.js';
import { formatId } from '../core/ids.js';
import { yamlValue } from '../core/record-codec.js';
import { iso } from '../core/time.js';
import type { HolonEvent } from '../core/types.js';
import { writeFileAtomic } from './atomic-write.js';
import { agentDir, type Home } from './home.js';

/** Fixed key order of event records. */
export const EVENT_KEYS = ['id', 'agent', 'source', 'mode', 'resource', 'work_item', 'payload', 'provenance', 'created_at', 'queued_us', 'status', 'admitted_at', 'disposition'] as const;

export const inboxDir = (home: Home, agent: string) => join(agentDir(home, agent), 'inbox');

export type EventInput = Pick<HolonEvent, 'source' | 'mode' | 'resource' | 'provenance'> & Partial<Pick<HolonEvent, 'work_item' | 'payload' | 'id'>>;

export function serializeEvent(ev: HolonEvent): string {
  const ordered: Record<string, unknown> = {};
  for (const k of EVENT_KEYS) if (k !== 'queued_us' || ev.queued_us !== undefined) ordered[k] = ev[k];
  return yamlValue(ordered) + '\n';
}

let lastQueued = 0;

/** The real time in microseconds, never the same twice in one process (HolonEvent.queued_us). */
function queuedStamp(): number {
  lastQueued = Math.max(Date.now() * 1000, lastQueued + 1);
  return lastQueued;
}

/**
 * Queues an event for `agent`: one new file in inbox/, so concurrent notifiers never contend and
 * two branches never conflict. Validation of the input is the caller's job.
 */
export function enqueueEvent(home: Home, agent: string, input: EventInput, nowMs: number): HolonEvent {
  const ev: HolonEvent = {
    // A caller may fix the id (a timer slot, a task handle) so a rerun can see the event already exists.
    id: input.id ?? formatId('e', randomBytes(8)),
    agent,
    source: input.source,
    mode: input.mode,
    resource: input.resource,
    work_item: input.work_item ?? null,
    payload: input.payload ?? null,
    provenance: input.provenance,
    created_at: iso(nowMs),
    queued_us: queuedStamp(),
    status: 'queued',
    admitted_at: null,
    disposition: null,
  };
  const dir = inboxDir(home, agent);
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(join(dir, `${ev.id}.yaml`), serializeEvent(ev), join(home.local, 'tmp'));
  return ev;
}
