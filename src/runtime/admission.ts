import { existsSync } from 'node:fs';
import { HolonError } from '../core/errors.js';
import { triggerWait } from '../core/transitions.js';
import { joinWaits, matchWaits, type MatchItem } from '../core/wait-matching.js';
import { consumedWaits } from '../store/runs.js';
import { iso } from '../core/time.js';
import type { HolonEvent } from '../core/types.js';
import { inboxFile, queuedIds, readAdmitted, readEventFile, storeAdmitted } from '../store/event-store.js';
import type { Home } from '../store/home.js';
import { withLock } from '../store/lock.js';
import { loadAgentWork } from '../store/work-index.js';
import { mutateWork, workFile } from '../store/work-store.js';
import type { Wake } from './tick.js';
import { crashPoint } from './crash-point.js';
import { skipBusy } from './skip-busy.js';

export interface Admission {
  event: HolonEvent;
  /** False when another process had admitted it already (the stored disposition is returned). */
  admitted_now: boolean;
}

/**
 * Admits one queued event: triggers the active waits on exactly its resource (only its work item's
 * when it names one), then moves the record to events/ with its disposition. Safe to rerun after a
 * crash: waits this event already triggered count again, nothing is triggered twice.
 */
export async function admitEvent(home: Home, agent: string, id: string, nowMs: number, opts: { lockRetries?: number; items?: MatchItem[] } = {}): Promise<Admission | null> {
  return withLock(
    home.local,
    `${agent}.${id}`,
    async () => {
      const file = inboxFile(home, agent, id);
      if (!existsSync(file)) {
        const done = readAdmitted(home, agent, id);
        return done ? { event: done, admitted_now: false } : null;
      }
      const ev = readEventFile(file);
      // A view loaded before other admissions of this pass is safe: each wait is re-checked under its item's lock.
      const items = opts.items ?? loadAgentWork(home, agent).items;
      const candidates = matchWaits(items, ev);
      const triggered: Array<{ work_item: string; wait: string }> = [];
      const nowIso = iso(nowMs);
      for (const itemId of [...new Set(candidates.map((c) => c.work_item))]) {
        const waitIds = candidates.filter((c) => c.work_item === itemId).map((c) => c.wait);
        let doc;
        try {
          ({ doc } = await mutateWork(home, { agent, id: itemId, file: workFile(home, agent, itemId) }, nowMs, (d) =>
            waitIds.reduce((acc, w) => triggerWait(acc, w, ev, nowIso), d),
            { lockRetries: opts.lockRetries },
          ));
        } catch (err) {
          // An item deleted or broken since it was listed is skipped; a busy lock keeps the event queued.
          if (err instanceof HolonError && (err.kind === 'invalid' || err.kind === 'notFound')) continue;
          throw err;
        }
        for (const w of doc.item.waits) if (waitIds.includes(w.id) && w.settled_by?.event === ev.id) triggered.push({ work_item: itemId, wait: w.id });
        // Keep the caller's view current: a later event of the same pass on this resource joins the
        // wake this one gave (read from the stale view, it would only nudge).
        const at = items.findIndex((i) => i.id === itemId);
        if (at !== -1) items[at] = { ...items[at], status: doc.item.status, waits: doc.item.waits };
      }
      // Waits triggered earlier whose wake no successful run consumed yet: this event joins that wake.
      let joined: Array<{ work_item: string; wait: string }> = [];
      if (!triggered.length) {
        const consumed = consumedWaits(home, agent);
        joined = joinWaits(items, ev, (w) => !consumed.has(w));
      }
      crashPoint('admission');
      const admitted: HolonEvent = { ...ev, agent, status: 'admitted', admitted_at: nowIso, disposition: { triggered, ...(joined.length ? { joined } : {}), nudged: triggered.length === 0 && joined.length === 0 } };
      storeAdmitted(home, admitted);
      return { event: admitted, admitted_now: true };
    },
    { retries: opts.lockRetries },
  );
}

/** The wakes an admitted event gives: one per triggered or joined wait, or an operator message that only nudged. */
export function wakesOf(ev: HolonEvent): Wake[] {
  const d = ev.disposition;
  if (!d) return [];
  const reason = ev.source === 'operator' ? 'operator_message' : 'wait_triggered';
  const waits = [...d.triggered, ...(d.joined ?? [])];
  if (waits.length) return waits.map((t) => ({ agent: ev.agent, work_item: t.work_item, reason, wait: t.wait, event: ev.id }));
  return ev.source === 'operator' ? [{ agent: ev.agent, work_item: ev.work_item, reason: 'operator_message', event: ev.id }] : [];
}

/** How many queued events one watch pass admits: a backlog drains in slices, each pass also fires timers. */
export const WATCH_ADMIT_SLICE = 500;

/**
 * The tick's admission phase: the queued events of the agents, oldest first, at most `limit` of them
 * (the watcher admits a backlog in slices, so timers and runs are not held up behind it; the rest is
 * due at once). Each event is read when it is admitted, never all of them at once.
 */
export async function admitQueued(home: Home, agents: string[], nowMs: number, limit = Infinity): Promise<HolonEvent[]> {
  const out: HolonEvent[] = [];
  let left = limit;
  for (const agent of agents) {
    if (left <= 0) break;
    const queued = queuedIds(home, agent).slice(0, left === Infinity ? undefined : left);
    if (!queued.length) continue;
    left -= queued.length;
    const items = loadAgentWork(home, agent).items;
    for (const id of queued) {
      const r = await skipBusy(() => admitEvent(home, agent, id, nowMs, { items }));
      if (r?.admitted_now) out.push(r.event);
    }
  }
  return out;
}
