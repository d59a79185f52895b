import { entryOrderKey, type FrontierEntry } from '../core/frontier.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { cycleNode, evaluatedFor } from '../core/frontier-reads.js';
import type { WorkItem } from '../core/types.js';
import type { DepIndex, DepRow } from './frontier-deps.js';
import { prioHash, titleHash } from './graph-entry.js';
import type { Titled } from './stat-index.js';
import type { Listing } from './work-listing.js';

/** The parts of a verdict patch (frontier-patch.ts) that read files or build its read index. */

const NR = CHANNELS.indexOf('not_runnable');

/** A new verdict: an entry (with its key), closed (its code), or none (another agent's item). */
export type Judged = { e: FrontierEntry; key: string; channel: number } | { closed: string } | null;

export class Unpatchable extends Error {}
/** Stops the patch (the answer is evaluated in full), saying why in the trace. */
export function give(why = 'the answer is not as expected'): never {
  throw new Unpatchable(why);
}

/** The read index after the patch: the new reads, and the changed items' own facts. */
export function nextDeps(deps: DepIndex, fresh: Map<string, WorkItem>, where: Map<string, [number, number]>, listings: Listing[], agent: string, reads: Map<string, string[]>, cut: Pick<DepIndex, 'cutCodes' | 'cutEntries'>): DepIndex {
  const next = new Map<string, DepRow>();
  const rowOf = (id: string) => {
    let row = next.get(id);
    if (!row) next.set(id, (row = { ...(deps.rows.get(id) ?? { deps: null, reads: [], at: null }) }));
    return row;
  };
  for (const [id, read] of reads) {
    const row = rowOf(id);
    row.reads = read;
    const w = read.length ? where.get(id)! : null;
    row.at = w ? w[0] * 2 ** 32 + w[1] : null;
  }
  const odd = new Set(deps.odd);
  const superseded = new Set(deps.superseded);
  for (const [id, item] of fresh) {
    const row = rowOf(id);
    const mine = evaluatedFor(item, agent);
    // Closed now, or another agent's: it reads nothing any more.
    if (!mine || item.status === 'done' || item.superseded_by) {
      row.reads = [];
      row.at = null;
    }
    row.deps = cycleNode(item) ? item.depends_on.join('\n') : null;
    if (mine !== (listings[where.get(id)![0]].agent === agent)) odd.add(id);
    else odd.delete(id);
    if (mine && item.superseded_by && item.status !== 'done') superseded.add(id);
    else superseded.delete(id);
  }
  return { special: deps.special, superseded: [...superseded], odd: [...odd], ...cut, rows: deps.rows.with(next) };
}

/**
 * A special entry kept from the cut, as it would be shown: only while the title and priority it holds
 * are its file's (a title patched where the answer does not show it is not written into it).
 */
export function keptEntry(e: FrontierEntry, snap: Titled, i: number, holder: string): Judged {
  if (titleHash(e.id, e.title) !== snap.titles[i] || prioHash(e.id, e.priority) !== snap.prios[i]) give('an entry left out has a new title');
  return { e, key: entryOrderKey(e, holder), channel: NR };
}

export function sortedCodes(byCode: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(byCode).sort()) if (byCode[k] > 0) out[k] = byCode[k];
  return out;
}
