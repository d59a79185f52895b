import type { WorkItem } from '../core/types.js';
import { isLive } from '../core/wait-matching.js';

/**
 * What the graph cache (graph-index.ts) keeps of an item: its "slim", the fields the frontier reads,
 * and the way back to a full WorkItem for the evaluator.
 */

export type Slim = Partial<WorkItem>;

const FIELDS = [
  // Only what the evaluator or the frontier's output reads: revision and successors change on writes
  // that never change a verdict, and leaving them out lets a cached answer survive those writes.
  // `observed` is the body's freshness facts (newest evidence, commits), not the body itself.
  'title', 'status', 'class', 'action', 'role', 'priority', 'created_at', 'depends_on', 'resume_when',
  'requires', 'repo', 'branch', 'write_scope', 'workspace', 'freshness', 'needs_decision', 'decision_scope', 'exclude', 'claim', 'waits', 'blocker',
  'superseded_by', 'observed',
] as const;

/**
 * A done or superseded item only answers "is it done, what replaced it, what did it decide": most of a
 * home is closed work, so this keeps the cache small. `explain` re-reads its own item in full.
 */
const CLOSED_FIELDS = ['status', 'class', 'decision_scope', 'superseded_by'] as const;

/** An item with a role also answers "who served in that role" (for `exclude: [role:R]` on what follows it). */
const ROLE_FIELDS = ['role', 'claim', 'successors'] as const;

const EMPTY = Object.freeze([]) as unknown as never[];
const NO_EXTRA = Object.freeze({}) as Record<string, unknown>;
const DONE: Slim = Object.freeze({ status: 'done' as const });

/** Only the fields the frontier reads; waits only while live (settled ones never change a verdict). */
export function slimOf(item: WorkItem, agent: string): Slim | 'D' {
  const out: Record<string, unknown> = {};
  // id is the file name; agent is the folder unless the record says otherwise.
  if (item.agent !== agent) out.agent = item.agent;
  const closed = item.status === 'done' || Boolean(item.superseded_by);
  if (item.status === 'done' && !item.superseded_by && item.class !== 'user_gate' && item.agent === agent && !item.role) return 'D';
  if (item.role) {
    for (const f of ROLE_FIELDS) if (item[f] != null && !(Array.isArray(item[f]) && !item[f].length)) out[f] = item[f];
    if (item.delivery?.completed_by) out.delivery = { completed_by: item.delivery.completed_by };
  }
  for (const f of closed ? CLOSED_FIELDS : FIELDS) {
    let v: unknown = item[f];
    // One short string: "evidence_at|evidence_commit|progress_commit" (most open items have some evidence).
    if (f === 'observed' && item.observed) v = `${item.observed.evidence_at ?? ''}|${item.observed.evidence_commit ?? ''}|${item.observed.progress_commit ?? ''}`;
    if (f === 'waits') v = item.waits.filter(isLive).map((w) => ({ id: w.id, kind: w.kind, resource: w.resource, status: w.status, recheck_at: w.recheck_at ?? null, ...(w.due_at ? { due_at: w.due_at } : {}) }));
    if (v == null || (Array.isArray(v) && v.length === 0) || (f === 'class' && v === 'advancement_task')) continue;
    out[f] = owned(v);
  }
  // Issue 17: the frontier's budget check reads the item's budget and where its spending starts; an
  // `event:` resume condition, where it starts counting events (core/transitions.ts defer).
  const { budget = null, budget_since = null, resume_since = null } = item.extra;
  if (!closed && (budget != null || budget_since != null || resume_since != null)) out.extra = { budget, budget_since, resume_since };
  return out as Slim;
}

/**
 * A value with strings of its own. A substring of 13 characters or more (a time, a title, a holder) is
 * kept by V8 as a slice of the string it was cut from, which then stays alive with it: every slim would
 * hold its whole record file (front matter and body) until the command ends, some tens of MB at 50,000
 * items. A slice of a fresh concatenation points into that short copy instead.
 */
function owned(v: unknown): unknown {
  if (typeof v === 'string') return v.length >= 13 ? (' ' + v).slice(1) : v;
  if (Array.isArray(v)) return v.map(owned);
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) o[k] = owned((v as Record<string, unknown>)[k]);
    return o;
  }
  return v;
}

/** A cached item as a full WorkItem: one object literal, so every item has the same shape (fast to read). */
export function itemOf(s: Slim | 'D', id: string, agent: string): WorkItem {
  if (s === 'D') s = DONE;
  return {
    id, title: s.title ?? '', agent: s.agent ?? agent, status: s.status ?? 'open', class: s.class ?? 'advancement_task',
    action: s.action ?? null, role: s.role ?? null, priority: s.priority ?? null, created_at: s.created_at ?? '', updated_at: '',
    revision: s.revision ?? 0, depends_on: s.depends_on ?? EMPTY, resume_when: s.resume_when ?? EMPTY,
    requires: s.requires ?? EMPTY, repo: s.repo ?? null, branch: s.branch ?? null, write_scope: s.write_scope ?? EMPTY,
    workspace: s.workspace ?? null, freshness: s.freshness ?? null, needs_decision: s.needs_decision ?? EMPTY, decision_scope: s.decision_scope ?? null, exclude: s.exclude ?? EMPTY,
    claim: s.claim ?? null, waits: s.waits ?? EMPTY, blocker: s.blocker ?? null, successors: s.successors ?? EMPTY,
    superseded_by: s.superseded_by ?? null, supersedes: EMPTY, no_followup: null, delivery: (s.delivery as WorkItem['delivery']) ?? null, extra: s.extra ?? NO_EXTRA,
    observed: s.observed ? observedFrom(s.observed as unknown as string) : null,
  };
}

function observedFrom(text: string): WorkItem['observed'] {
  if (typeof text !== 'string') return null;
  const [a, c, pc] = text.split('|');
  return { evidence_at: a || null, evidence_commit: c || null, progress_commit: pc || null };
}

