/** Field names follow SPEC section 2; they are the JSON interface scripts rely on. */

export const STATUSES = ['open', 'done', 'blocked', 'deferred'] as const;
export type Status = (typeof STATUSES)[number];

export const CLASSES = ['advancement_task', 'continuous_monitor', 'user_gate', 'user_action', 'blocker'] as const;
export type TaskClass = (typeof CLASSES)[number];

export const PRIORITIES = ['P0', 'P1', 'P2', 'P3', 'P4'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const WAIT_KINDS = ['task', 'timer', 'thread', 'external', 'operator'] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

export const WAIT_STATUSES = ['active', 'triggered', 'resolved', 'cancelled', 'expired'] as const;
export type WaitStatus = (typeof WAIT_STATUSES)[number];

export interface Wait {
  id: string;
  kind: WaitKind;
  resource: string;
  reason: string;
  status: WaitStatus;
  created_at: string;
  recheck_at: string | null;
  /** For a timer wait: when its timer is due (recheck_at is only the fallback after it). */
  due_at?: string | null;
  settled_at: string | null;
  settled_reason: string | null;
  /** The event that settled it, with its provenance (source, mode). */
  settled_by?: { event: string; source: string; mode: string; provenance?: string } | null;
  /** When a triggered wait was handled (a new wait, completion, or `holon wait --resolve`). */
  resolved_at?: string | null;
}

export interface Claim {
  holder: string;
  claimed_at: string;
  expires_at: string | null;
  version: number;
  epoch: number;
  key?: string | null;
  /** The lease length it was granted with (renew reuses it). */
  ttl?: string | null;
}

export interface Blocker {
  reason: string;
  recovery: string;
  since: string;
}

export interface Delivery {
  result: string;
  evidence: string[];
  outstanding: string[];
  completed_at: string;
  completed_by: string;
}

/** Where an item may be worked on beyond repo and branch (the shared-checkout guard). */
export interface WorkspacePolicy {
  /** Writes need a linked `git worktree`: the repository's main checkout is shared and refused. */
  require_worktree?: boolean;
}

/** How long the item's newest evidence counts as fresh (a duration, or "off" to ignore the home's default). */
export interface FreshnessPolicy {
  max_age?: string;
}

/** What the body records that the frontier's freshness check reads (computed, never written). */
export interface Observed {
  /** The newest evidence entry's time. */
  evidence_at: string | null;
  /** The commit of the newest evidence entry that names one. */
  evidence_commit: string | null;
  /** The commit of the newest progress entry that names one. */
  progress_commit: string | null;
}

export interface DecisionScope {
  scope: string;
  decision?: 'approved' | 'rejected' | null;
  decided_at?: string | null;
  decided_by?: string | null;
  note?: string | null;
}

/** A WorkItem as scripts see it in --json. Body-derived fields follow the front matter ones. */
export interface WorkItem {
  id: string;
  title: string;
  agent: string;
  status: Status;
  class: TaskClass;
  action: string | null;
  /** The role the item serves (implementer, reviewer, monitor...): shown, and usable in `exclude: [role:R]`. */
  role: string | null;
  priority: Priority | null;
  created_at: string;
  updated_at: string;
  revision: number;
  depends_on: string[];
  resume_when: string[];
  requires: string[];
  repo: string | null;
  branch: string | null;
  write_scope: string[];
  workspace: WorkspacePolicy | null;
  freshness: FreshnessPolicy | null;
  needs_decision: string[];
  decision_scope: DecisionScope | null;
  exclude: string[];
  claim: Claim | null;
  waits: Wait[];
  blocker: Blocker | null;
  successors: string[];
  superseded_by: string | null;
  /** The items this one replaced (the other end of their superseded_by). */
  supersedes: string[];
  no_followup: string | null;
  delivery: Delivery | null;
  /** Other front matter keys, kept as written. */
  extra: Record<string, unknown>;
  /** Body facts for the freshness check (set by the readers that see the body; never printed as such). */
  observed?: Observed | null;
}

export const EVENT_SOURCES = ['operator', 'task', 'timer', 'thread', 'external', 'agent'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

export const EVENT_MODES = ['wake_hint', 'message'] as const;
export type EventMode = (typeof EVENT_MODES)[number];

/**
 * What admitting an event did: the waits it triggered, the triggered waits whose pending wake it joined
 * (no successful run had consumed them yet), or only a nudge of its agent.
 */
export interface Disposition {
  triggered: Array<{ work_item: string; wait: string }>;
  joined?: Array<{ work_item: string; wait: string }>;
  nudged: boolean;
}

/**
 * An event: something for the runtime to handle. Queued as agents/A/inbox/ID.yaml until admitted;
 * only `operator` carries instruction authority; outside payloads are untrusted data.
 */
/** Oldest first: by `created_at`, then by when each was queued, then by id. */
export function eventOrder(a: Pick<HolonEvent, 'created_at' | 'queued_us' | 'id'>, b: Pick<HolonEvent, 'created_at' | 'queued_us' | 'id'>): number {
  return a.created_at.localeCompare(b.created_at) || (a.queued_us ?? 0) - (b.queued_us ?? 0) || a.id.localeCompare(b.id);
}

export interface HolonEvent {
  id: string;
  agent: string;
  source: EventSource;
  mode: EventMode;
  resource: string;
  /** Set when the event concerns one item only (it then never settles another item's wait). */
  work_item: string | null;
  payload: string | null;
  /** Where it came from: "cli:notify", "ingress:<token id>", "timer:t-...", "task:k-...". */
  provenance: string;
  created_at: string;
  /**
   * When it was queued on the real clock, in microseconds since the epoch, strictly increasing within
   * one process: `created_at` has whole seconds (and an injected clock may hold still), so this orders
   * events that share it (eventOrder). Absent in records written before it existed.
   */
  queued_us?: number;
  status: 'queued' | 'admitted';
  admitted_at: string | null;
  disposition: Disposition | null;
}
