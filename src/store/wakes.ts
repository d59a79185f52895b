import type { WakeInfo } from '../core/resume.js';
import type { WorkView } from '../core/workitem.js';
import type { Home } from './home.js';

/** What woke an item's triggered waits, with provenance and any message payload. */
export function wakesFor(_home: Home, _agent: string, item: WorkView): WakeInfo[] {
  return item.waits
    .filter((w) => w.status === 'triggered' && w.settled_by)
    .map((w) => ({
      wait: w.id,
      event: w.settled_by!.event,
      source: w.settled_by!.source,
      mode: w.settled_by!.mode,
      resource: `${w.kind}:${w.resource}`,
      at: w.settled_at,
      provenance: w.settled_by!.provenance ?? null,
      payload: null,
    }));
}
