import { expireWait } from '../core/transitions.js';
import { iso } from '../core/time.js';
import type { Home } from '../store/home.js';
import { loadAgentWork } from '../store/work-index.js';
import { mutateWork, workFile } from '../store/work-store.js';
import { skipBusy } from './skip-busy.js';

/**
 * The tick's recheck phase: active waits whose fallback `recheck_at` has passed expire with
 * `recheck_deadline` (the item is due for a recheck). Re-checked under the item's lock.
 */
export async function expireRechecks(home: Home, agents: string[], nowMs: number): Promise<Array<{ agent: string; work_item: string; wait: string }>> {
  const out: Array<{ agent: string; work_item: string; wait: string }> = [];
  const nowIso = iso(nowMs);
  for (const agent of agents) {
    for (const item of loadAgentWork(home, agent).items) {
      if (item.status === 'done') continue;
      const due = item.waits.filter((w) => w.status === 'active' && w.recheck_at && Date.parse(w.recheck_at) <= nowMs).map((w) => w.id);
      if (!due.length) continue;
      // The waits this pass expires, as the re-read under the lock shows them still active: another
      // pass in the same second may have expired them first (its settled_at would look like ours).
      let mine: string[] = [];
      const r = await skipBusy(() =>
        mutateWork(home, { agent, id: item.id, file: workFile(home, agent, item.id) }, nowMs, (d) => {
          mine = d.item.status === 'done' ? [] : due.filter((id) => d.item.waits.some((w) => w.id === id && w.status === 'active'));
          return mine.reduce((acc, id) => expireWait(acc, id, nowIso), d);
        }),
      );
      if (!r) continue;
      for (const w of r.doc.item.waits) {
        if (mine.includes(w.id) && w.status === 'expired' && w.settled_reason === 'recheck_deadline') out.push({ agent, work_item: item.id, wait: w.id });
      }
    }
  }
  return out;
}
