/**
 * The frontier's checks, its channels and its stable reason codes. Scripts rely on these names;
 * docs/frontier.md documents the same table.
 */

/** The filters, in the order SPEC section 4 gives them. */
export const CHECKS = ['status', 'dependencies', 'waits', 'gates', 'claims', 'capabilities', 'workspace', 'freshness'] as const;
export type CheckName = (typeof CHECKS)[number];

export const CHANNELS = ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable'] as const;

/** How many entries a channel `holon frontier` shows a person (its --limit when neither --json nor --all is given). */
export const PERSON_LIMIT = 10;

/**
 * Without `all`, not_runnable lists only its first entries (frontier order) and `truncated.not_runnable`
 * says how many more: a script needs the counts and the channels an agent acts on, and a large home's
 * blocked tail (thousands of entries with their reasons) would be most of the output. `counts` and
 * `by_code` always cover everything; `holon explain ID` gives any one item's reason.
 */
export const NOT_RUNNABLE_SHOWN = 50;

/** `closed` items (done, superseded, decided gates, other agents' items) are counted, never listed. */
export type Channel = (typeof CHANNELS)[number] | 'closed';

export interface ReasonInfo {
  check: CheckName;
  channel: Channel;
  meaning: string;
}

export const REASONS = {
  status_done: { check: 'status', channel: 'closed', meaning: 'the item is done' },
  superseded: { check: 'status', channel: 'closed', meaning: 'superseded_by names its replacement; work on that one' },
  assigned_to_other: { check: 'status', channel: 'closed', meaning: 'the item belongs to another agent' },
  gate_decided: { check: 'status', channel: 'closed', meaning: 'a user_gate whose decision is recorded' },
  blocked: { check: 'status', channel: 'not_runnable', meaning: 'status blocked, or a business blocker is set: only an explicit action clears it' },
  decision_required: { check: 'status', channel: 'needs_decision', meaning: 'a user_gate waiting for a person: holon decide ID --approve|--reject' },
  user_action: { check: 'status', channel: 'needs_action', meaning: "a person's task: shown, blocks nobody unless depended on" },
  dependency_missing: { check: 'dependencies', channel: 'not_runnable', meaning: 'depends_on names an item that does not exist' },
  dependency_cycle: { check: 'dependencies', channel: 'not_runnable', meaning: 'the item is on a depends_on cycle' },
  dependency_open: { check: 'dependencies', channel: 'not_runnable', meaning: 'a dependency (or its replacement) is not done' },
  wait_triggered: { check: 'waits', channel: 'resume_candidates', meaning: 'a wait was woken: review the item and continue it' },
  waiting: { check: 'waits', channel: 'waiting', meaning: 'a live wait (task, timer, external, operator) has not been woken' },
  not_due: { check: 'waits', channel: 'waiting', meaning: 'a continuous_monitor before its next check time' },
  monitor_unscheduled: { check: 'waits', channel: 'not_runnable', meaning: 'a continuous_monitor with no next check (no live wait, no resume_when): nothing makes it due' },
  resume_pending: { check: 'waits', channel: 'waiting', meaning: 'an open item whose resume_when conditions are not met yet' },
  deferred: { check: 'waits', channel: 'waiting', meaning: 'deferred, and no resume_when condition is met yet' },
  resume_ready: { check: 'waits', channel: 'resume_candidates', meaning: 'deferred, and a resume_when condition is met: review it (reopen, supersede or close); it is not reopened by itself' },
  resume_invalid: { check: 'waits', channel: 'not_runnable', meaning: 'a resume_when entry is not one of at:, done:, event:, capability:' },
  gate_pending: { check: 'gates', channel: 'not_runnable', meaning: 'a covering user_gate exists but nobody decided it yet (see needs_decision)' },
  gate_missing: { check: 'gates', channel: 'not_runnable', meaning: 'needs_decision has no covering user_gate: create one' },
  gate_rejected: { check: 'gates', channel: 'not_runnable', meaning: 'a covering gate was rejected' },
  gate_invalid: { check: 'gates', channel: 'not_runnable', meaning: 'a needs_decision entry is not kind:granularity:key' },
  claimed_by_other: { check: 'claims', channel: 'not_runnable', meaning: 'another holder has a live claim or lease' },
  excluded: { check: 'claims', channel: 'not_runnable', meaning: 'exclude names this agent' },
  capability_missing: { check: 'capabilities', channel: 'not_runnable', meaning: 'a required capability is not declared, or its probe failed or never ran' },
  repo_mismatch: { check: 'workspace', channel: 'not_runnable', meaning: 'the checkout is not the repository the item names' },
  branch_mismatch: { check: 'workspace', channel: 'not_runnable', meaning: 'the checkout is on another branch' },
  write_scope_conflict: { check: 'workspace', channel: 'not_runnable', meaning: "write_scope overlaps another holder's live claim in the same repository" },
  // Issue 17, budgets (docs/budgets.md).
  budget_exhausted: { check: 'status', channel: 'not_runnable', meaning: "the item's budget, or its agent's daily budget, is spent: holon edit ID --budget raises it, holon reopen grants it afresh; a daily one resets the next day" },
  budget_invalid: { check: 'status', channel: 'not_runnable', meaning: "the item's budget (front matter budget:) does not parse, so the watcher refuses it: holon edit ID --budget replaces it" },
  // Issue 16: the shared-checkout guard, and freshness and evidence (flags: the item stays runnable,
  // sorted after fresh items of the same priority).
  shared_checkout: { check: 'workspace', channel: 'not_runnable', meaning: "the item needs a dedicated git worktree; this is the repository's main checkout (or not git)" },
  stale_commit: { check: 'freshness', channel: 'runnable', meaning: 'evidence or progress was observed on a commit HEAD has moved past (or one this repository lacks): recheck first' },
  stale_age: { check: 'freshness', channel: 'runnable', meaning: 'the newest evidence is older than the freshness limit (freshness.max_age): recheck first' },
  evidence_missing: { check: 'freshness', channel: 'runnable', meaning: 'the action needs acceptance evidence the record lacks (a review without the commit reviewed)' },
} as const satisfies Record<string, ReasonInfo>;

export type ReasonCode = keyof typeof REASONS;

/** Codes of a runnable entry that is flagged (freshness): runnable, but recheck before building on it. */
export const FLAGS = new Set<string>(['stale_commit', 'stale_age', 'evidence_missing']);

/** Code of an entry that passed every check. */
export const RUNNABLE = 'runnable';
