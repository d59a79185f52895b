import { invalid } from './errors.js';
import { checkPayload } from './event-input.js';
import { EVENT_MODES, type EventMode } from './types.js';
import { checkResource } from './wait-matching.js';

/** What an outside notifier may send: the same fields as `holon notify`. */
export interface NotifyInput {
  resource: string;
  mode: EventMode;
  payload: string | null;
  work_item: string | null;
}

/**
 * Validates a notification body ({resource, mode, payload}); throws HolonError(invalid) saying what
 * is wrong. A payload object is kept as its JSON text: outside payloads are data, never instructions.
 */
export function parseNotifyInput(body: unknown): NotifyInput {
  const example = 'send {"resource": "external:github:acme/app#101", "mode": "wake_hint"} or {"resource": "...", "mode": "message", "payload": "..."}';
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object', example);
  const b = body as Record<string, unknown>;
  const resource = b.resource;
  if (typeof resource !== 'string') throw invalid('"resource" is missing or not a string', example);
  // The same checks as `holon notify`: one word, no spaces or control characters, bounded length.
  checkResource(resource, '"resource"');
  const mode = b.mode ?? 'wake_hint';
  if (typeof mode !== 'string' || !EVENT_MODES.includes(mode as EventMode)) {
    throw invalid(`"mode" must be one of ${EVENT_MODES.join(', ')}`, example);
  }
  let payload: string | null = null;
  if (b.payload !== undefined && b.payload !== null) payload = typeof b.payload === 'string' ? b.payload : JSON.stringify(b.payload);
  checkPayload(payload);
  let workItem: string | null = null;
  if (b.work_item !== undefined && b.work_item !== null) {
    if (typeof b.work_item !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/.test(b.work_item)) throw invalid('"work_item" must be a WorkItem id', example);
    workItem = b.work_item;
  }
  return { resource, mode: mode as EventMode, payload, work_item: workItem };
}
