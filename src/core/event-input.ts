import { invalid } from './errors.js';
import { EVENT_MODES, type EventMode, type EventSource } from './types.js';
import { checkResource } from './wait-matching.js';

/**
 * Largest payload an event may carry, in UTF-8 bytes. Events are committed records that a resumed
 * agent reads: 64 KiB holds a CI summary or a log tail; bigger data belongs in a file the payload names.
 */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** Sources a CLI caller may claim with `holon notify --source`; operator, task and timer are the runtime's own. */
export const NOTIFY_SOURCES: readonly EventSource[] = ['external', 'agent'];

export interface NotifyInput {
  resource: string;
  mode: string;
  source: string;
  payload: string | null;
}

/** Refuses malformed event input before anything is written. */
export function checkNotify(input: NotifyInput): { resource: string; mode: EventMode; source: EventSource; payload: string | null } {
  checkResource(input.resource);
  if (!EVENT_MODES.includes(input.mode as EventMode)) throw invalid(`unknown mode "${input.mode}"`, `use --mode ${EVENT_MODES.join(' or --mode ')}`);
  if (!NOTIFY_SOURCES.includes(input.source as EventSource)) {
    const own = input.source === 'operator' ? ' (a person\'s message goes through `holon tell`)' : input.source === 'task' || input.source === 'timer' || input.source === 'thread' ? ` (${input.source} events come from holon itself)` : '';
    throw invalid(`source "${input.source}" is not allowed here${own}`, `use --source ${NOTIFY_SOURCES.join(' or --source ')}`);
  }
  checkPayload(input.payload);
  return { resource: input.resource, mode: input.mode as EventMode, source: input.source as EventSource, payload: input.payload };
}

/** Unicode bidirectional embeddings, overrides and isolates (Trojan Source). */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;

export function checkPayload(payload: string | null): void {
  if (payload == null) return;
  const bytes = Buffer.byteLength(payload, 'utf8');
  if (bytes > MAX_PAYLOAD_BYTES) throw invalid(`payload is ${bytes} bytes; the limit is ${MAX_PAYLOAD_BYTES} (64 KiB)`, 'send a summary, or put the data in a file and send its path');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(payload)) throw invalid('payload contains control characters (binary data?)', 'send text; encode binary data (base64) or send a path to it');
  // Bidirectional embeddings, overrides and isolates make text read differently from what it is.
  if (BIDI_CONTROLS.test(payload)) throw invalid('payload contains bidirectional control characters (U+202A-U+202E, U+2066-U+2069)', 'send plain text without direction overrides');
}
