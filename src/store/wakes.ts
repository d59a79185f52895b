import type { WakeInfo } from '../core/resume.js';
import { waitKey } from '../core/wait-matching.js';
import type { WorkView } from '../core/workitem.js';
import { readAdmitted, recentOperatorEvents } from './event-store.js';
import type { Home } from './home.js';

/** How many operator messages that matched no wait resume shows at most. */
const OPERATOR_MESSAGES = 3;

/**
 * What woke an item, with provenance: the events that triggered its waits, and operator messages that
 * matched no wait but concern this item (or no item) and came after the item's last progress entry.
 * A `message` event's payload is read from the admitted record (resume fences it unless the source is
 * the operator); a `wake_hint` never shows its payload to the agent.
 */
export function wakesFor(home: Home, agent: string, item: WorkView): WakeInfo[] {
  const out: WakeInfo[] = item.waits
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
  if (item.status === 'done') return out;
  const since = item.progress.reduce((m, p) => (p.at && p.at > m ? p.at : m), item.created_at);
  const messages = recentOperatorEvents(home, agent, Date.parse(since) || 0).filter(
    (e) => e.source === 'operator' && (e.disposition?.nudged || Boolean(e.disposition?.joined?.length)) && (e.work_item === item.id || e.work_item == null) && (e.admitted_at ?? '') >= since,
  );
  for (const e of messages.slice(-OPERATOR_MESSAGES)) {
    out.push({ wait: null, event: e.id, source: e.source, mode: e.mode, resource: e.resource, at: e.admitted_at, provenance: e.provenance, payload: e.mode === 'message' ? e.payload : null });
  }
  return out;
}
