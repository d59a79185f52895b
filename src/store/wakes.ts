import type { WakeInfo } from '../core/resume.js';
import { waitKey } from '../core/wait-matching.js';
import type { WorkView } from '../core/workitem.js';
import { readAdmitted } from './event-store.js';
import type { Home } from './home.js';

/**
 * What woke an item's triggered waits, with provenance. A `message` event's payload is read from the
 * admitted record (resume fences it as untrusted unless the source is the operator); a `wake_hint`
 * never shows its payload to the agent.
 */
export function wakesFor(home: Home, agent: string, item: WorkView): WakeInfo[] {
  return item.waits
    .filter((w) => w.status === 'triggered' && w.settled_by)
    .map((w) => {
      const by = w.settled_by!;
      const ev = readAdmitted(home, agent, by.event);
      return {
        wait: w.id,
        event: by.event,
        source: by.source,
        mode: by.mode,
        resource: waitKey(w),
        at: w.settled_at,
        provenance: by.provenance ?? ev?.provenance ?? null,
        payload: by.mode === 'message' && ev ? ev.payload : null,
      };
    });
}
