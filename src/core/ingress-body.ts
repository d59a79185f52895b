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

/** Deepest nesting of arrays and objects a payload may have (JSON.stringify recurses over it). */
export const MAX_DEPTH = 64;

/** How deeply `v` nests, counted without recursion (a 256 KiB body can nest 100,000 levels). */
export function depth(v: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (!x || typeof x !== 'object') continue;
    if (d > max) max = d;
    if (max > MAX_DEPTH) return max;
    for (const c of Object.values(x as object)) if (c && typeof c === 'object') stack.push([c, d + 1]);
  }
  return max;
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
  if (depth(b.payload) > MAX_DEPTH) throw invalid(`"payload" is nested deeper than ${MAX_DEPTH} levels`, 'send a flatter payload, or send it as a string');
  if (b.payload !== undefined && b.payload !== null) payload = typeof b.payload === 'string' ? b.payload : JSON.stringify(b.payload);
  checkPayload(payload);
  let workItem: string | null = null;
  if (b.work_item !== undefined && b.work_item !== null) {
    if (typeof b.work_item !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/.test(b.work_item)) throw invalid('"work_item" must be a WorkItem id', example);
    workItem = b.work_item;
  }
  return { resource, mode: mode as EventMode, payload, work_item: workItem };
}
