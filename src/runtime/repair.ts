import { settleLiveWaits } from '../core/transitions.js';
import { iso } from '../core/time.js';
import type { WorkDoc } from '../core/workitem.js';
import type { Home } from '../store/home.js';
import { listTimers } from '../store/timers.js';
import { loadAgentWork } from '../store/work-index.js';
import { mutateWork, workFile } from '../store/work-store.js';
import { skipBusy } from './skip-busy.js';
import { cancelItemTimers } from './timers.js';

export interface Repairs {
  timers_cancelled: Array<{ agent: string; work_item: string; timer: string }>;
  waits_settled: Array<{ agent: string; work_item: string }>;
}

/**
 * Finishes what a `complete` or `supersede` killed half-way left behind: an item written done whose
 * own timers are still active (they would fire for ever), or a done item that still has a live wait.
 * Each step is what the command itself does, so running it again changes nothing. Part of every tick.
 */
export async function repairDoneItems(home: Home, agents: string[], nowMs: number): Promise<Repairs> {
  const out: Repairs = { timers_cancelled: [], waits_settled: [] };
  for (const agent of agents) {
    const items = loadAgentWork(home, agent).items;
    const done = new Set(items.filter((i) => i.status === 'done').map((i) => i.id));
    if (!done.size) continue;
    const orphans = new Set(listTimers(home, agent).timers.filter((t) => t.status === 'active' && t.work_item && done.has(t.work_item)).map((t) => t.work_item!));
    for (const id of orphans) {
      const r = await cancelItemTimers(home, agent, id, nowMs);
      out.timers_cancelled.push(...r.cancelled.map((timer) => ({ agent, work_item: id, timer })));
    }
    for (const i of items) {
      if (i.status !== 'done' || !i.waits.some((w) => w.status === 'active' || w.status === 'triggered')) continue;
      const reason = i.superseded_by ? 'superseded' : 'work_item_completed';
      const settle = (d: WorkDoc) => (d.item.status === 'done' ? settleLiveWaits(d, reason, iso(nowMs)) : d);
      const r = await skipBusy(() => mutateWork(home, { agent, id: i.id, file: workFile(home, agent, i.id) }, nowMs, settle, { lockRetries: 10 }));
      if (r?.changed) out.waits_settled.push({ agent, work_item: i.id });
    }
  }
  return out;
}
