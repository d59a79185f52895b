import { normalizeHolder, sameHolder } from './claims.js';
import type { WorkItem } from './types.js';

/**
 * Roles in exclusions. `exclude: ["role:implementer"]` on an item keeps off it every holder who served
 * as implementer on the work it follows: the items it depends on and the items naming it as a
 * successor. That is how "the author of a change may not take its review" is written without naming
 * the author: whoever claimed the implementation (the record keeps the last holder after a release)
 * or completed it. A plain entry (`exclude: [main]`) still names an agent.
 */

export const ROLE_PREFIX = 'role:';

export const roleRules = (item: WorkItem) => item.exclude.filter((x) => x.startsWith(ROLE_PREFIX));

/** Who served on an item: its (last) claim holder and whoever completed it. */
export function servedBy(item: WorkItem): string[] {
  const out: string[] = [];
  if (item.claim?.holder) out.push(item.claim.holder);
  if (item.delivery?.completed_by && !out.some((h) => sameHolder(h, item.delivery!.completed_by))) out.push(item.delivery.completed_by);
  return out;
}

/** Follows superseded_by from `id` to the item that replaced it (bounded, so hand-made loops end). */
export function replacementOf(byId: (id: string) => WorkItem | undefined, id: string): WorkItem | undefined {
  let cur = byId(id);
  for (let hops = 0; cur?.superseded_by && hops < 20; hops++) {
    const next = byId(cur.superseded_by);
    if (!next) break;
    cur = next;
  }
  return cur;
}

/**
 * The items `item` follows: its dependencies (each followed through superseded_by to what replaced it,
 * as the dependency check does) and its predecessors (items naming it as a successor). The one
 * resolver of role exclusions: the evaluator (frontier, explain) and claim/transfer both use it.
 */
export function relatedItems(item: WorkItem, byId: (id: string) => WorkItem | undefined, predecessors: WorkItem[]): WorkItem[] {
  const out: WorkItem[] = [];
  for (const d of item.depends_on) {
    const x = replacementOf(byId, d);
    if (x && !out.includes(x)) out.push(x);
  }
  for (const x of predecessors) if (!out.includes(x)) out.push(x);
  return out;
}

/** relatedItems over a plain list of items (the first record of an id wins, as in the evaluator). */
export function relatedItemsIn(item: WorkItem, items: readonly WorkItem[]): WorkItem[] {
  const byId = new Map<string, WorkItem>();
  for (const i of items) if (!byId.has(i.id)) byId.set(i.id, i);
  return relatedItems(item, (id) => byId.get(id), items.filter((i) => i.successors.includes(item.id)));
}

/** Why `holder` is excluded from `item`, or null: a named agent, or a role it served on related work. */
export function exclusionOf(item: WorkItem, holder: string, related: () => WorkItem[]): string | null {
  const named = item.exclude.find((x) => !x.startsWith(ROLE_PREFIX) && sameHolder(x, holder));
  if (named) return `exclude names ${normalizeHolder(named)}`;
  const rules = roleRules(item);
  if (!rules.length) return null;
  const rel = related();
  for (const rule of rules) {
    const role = rule.slice(ROLE_PREFIX.length).trim();
    for (const r of rel) {
      if (r.role !== role) continue;
      if (servedBy(r).some((h) => sameHolder(h, holder))) return `exclude ${rule}: ${normalizeHolder(holder)} served as ${role} on ${r.id}`;
    }
  }
  return null;
}
