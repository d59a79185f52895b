import { cycleNode, evaluatedFor, specialItem, type VerdictRecord } from '../core/frontier-reads.js';
import type { FrontierEntry } from '../core/frontier.js';
import type { WorkItem } from '../core/types.js';

/**
 * What an evaluated answer's verdicts read (core/frontier-reads.ts), kept beside the answer so that a
 * change of a few items re-evaluates them and their readers alone (frontier-patch.ts). Stored under
 * the answer's lineage (frontier-cache.ts), like the entries its cap left out: a new title or
 * priority written into the answer (frontier-titles.ts) changes no verdict, no read and no entry's
 * place between shown and left out, so the answers patched so keep it.
 */
export interface DepIndex {
  /** Items of any agent that feed or read an index over every item (specialItem). */
  special: string[];
  /** Live items with dependencies (any agent): their depends_on, '\n' between ids. */
  deps: Record<string, string>;
  /** Per evaluated item of the agent that read other items: the ids it looked up. */
  reads: Record<string, string[]>;
  /** Where each of those is in the title index's listings: listing * 2^32 + position. */
  at: Record<string, number>;
  /** The agent's superseded items (counted closed as `superseded`; the rest of the closed: `status_done`). */
  superseded: string[];
  /** Items evaluated for the agent outside its folder, or not evaluated for it inside it. */
  odd: string[];
  /** The code of each entry the cap left out of not_runnable, in the cut's order (it keeps no entry's text). */
  cutCodes: string[];
  /**
   * The special ones among them in full, by where their files are (as `at`): one that comes into
   * view is not evaluated again (that would need the indexes over every item), and nothing it read changed.
   */
  cutEntries: Record<string, FrontierEntry>;
}

/**
 * The index of an evaluation over `items` for `agent` (whose folder is `own`: items listed there), or
 * null when no change could be patched anyway: an id in two files, a dependency cycle, a record that
 * did not parse.
 */
export function depIndexOf(items: readonly WorkItem[], agent: string, folderOf: (i: number) => string, rec: VerdictRecord, problems: number, tail: FrontierEntry[], where: Map<string, number>): DepIndex | null {
  if (rec.unique !== items.length || rec.cycles > 0 || problems > 0) return null;
  const special: string[] = [];
  const deps: Record<string, string> = {};
  const superseded: string[] = [];
  const odd: string[] = [];
  for (let n = 0; n < items.length; n++) {
    const i = items[n];
    if (specialItem(i)) special.push(i.id);
    if (cycleNode(i)) deps[i.id] = i.depends_on.join('\n');
    const mine = evaluatedFor(i, agent);
    if (mine !== (folderOf(n) === agent)) odd.push(i.id);
    if (mine && i.superseded_by && i.status !== 'done') superseded.push(i.id);
  }
  const specials = new Set(special);
  const cutEntries: Record<string, FrontierEntry> = {};
  for (const e of tail) if (specials.has(e.id)) cutEntries[where.get(e.id)!] = e;
  const at: Record<string, number> = {};
  for (const id of rec.reads.keys()) {
    const w = where.get(id);
    if (w === undefined || w < 0) return null;
    at[id] = w;
  }
  return { special, deps, reads: Object.fromEntries(rec.reads), at, superseded, odd, cutCodes: tail.map((e) => e.code), cutEntries };
}

export const depText = (d: DepIndex) => JSON.stringify(d);

export function parseDeps(text: string): DepIndex | null {
  try {
    const d = JSON.parse(text) as DepIndex;
    const arrays = [d.special, d.superseded, d.odd, d.cutCodes].every(Array.isArray);
    return arrays && [d.deps, d.reads, d.at, d.cutEntries].every((x) => x && typeof x === 'object') ? d : null;
  } catch {
    return null;
  }
}
