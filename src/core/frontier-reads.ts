import type { WorkItem } from './types.js';

/**
 * What each verdict read of other items, so that a change of a few items re-evaluates only them and
 * the items that read them (store/frontier-patch.ts), instead of the whole graph.
 *
 * A verdict reads other items in two ways. By id, through `byId` (its dependencies and what replaced
 * them, the targets of its `done:` conditions): a ReadLog records those ids per item. And through the
 * indexes `prepare` builds over every item (dependency cycles, user_gates by scope, write-scope
 * leases, role predecessors): an item that feeds one or reads one is `special`, and a change that
 * touches a special item (or could make a cycle) is evaluated in full.
 */

/** A byId map that records the ids looked up while `reading` is set, and loads a missing one through `miss`. */
export class ReadLog extends Map<string, WorkItem> {
  reading: string[] | null = null;
  private readonly missed = new Set<string>();
  constructor(private readonly miss?: (id: string) => WorkItem | undefined) {
    super();
  }

  override get(id: string): WorkItem | undefined {
    if (this.reading) this.reading.push(id);
    const v = super.get(id);
    if (v !== undefined || !this.miss || this.missed.has(id)) return v;
    this.missed.add(id);
    const loaded = this.miss(id);
    if (loaded) super.set(id, loaded);
    return loaded;
  }
}

/** What a full evaluation tells about its reads (computeFrontier's `record`). */
export interface VerdictRecord {
  /** Per evaluated item of the agent that read another item: the ids it looked up, in order. */
  reads: Map<string, string[]>;
  /** Distinct ids among the items (fewer than the items: an id in two files). */
  unique: number;
  /** Items on a dependency cycle. */
  cycles: number;
}

/**
 * An item that goes into (or reads) an index over every item: a user_gate or an item needing a
 * decision (gates), a write scope (leases), a role, successors or exclusions (role predecessors).
 */
export const specialItem = (i: WorkItem) =>
  i.class === 'user_gate' || i.needs_decision.length > 0 || i.write_scope.length > 0 || Boolean(i.role) || i.successors.length > 0 || i.exclude.length > 0;

/** Whether the agent's frontier evaluates the item at all (an item of no agent is everyone's). */
export const evaluatedFor = (i: WorkItem, agent: string) => !i.agent || i.agent === agent;

/** A live item with dependencies: a node of the cycle search. */
export const cycleNode = (i: WorkItem) => i.depends_on.length > 0 && i.status !== 'done' && !i.superseded_by;
