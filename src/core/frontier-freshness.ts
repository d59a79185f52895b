import { parseDuration } from './time.js';
import type { WorkItem } from './types.js';

/**
 * The frontier's last check (seed 002: "finally, consider freshness and evidence"): it never removes an
 * item, it flags it. A stale or unproven item is still the right work; the agent must recheck before it
 * builds on what the record says. Pure: the commit facts come from the input, lazily.
 */

/** How a recorded commit relates to the checkout's HEAD. */
export type Ancestry = 'same' | 'ancestor' | 'other' | 'unknown';

/** The home's defaults (holon.yaml `freshness: {max_age}` and `workspace: {require_worktree}`). */
export interface FrontierPolicy {
  max_age_ms: number | null;
  require_worktree: boolean;
}

export const NO_POLICY: FrontierPolicy = Object.freeze({ max_age_ms: null, require_worktree: false });

/**
 * Actions whose acceptance needs evidence naming a commit: a review proves nothing until it says which
 * commit it reviewed. Decided here; the table is the place to add more.
 */
export const COMMIT_EVIDENCE_ACTIONS: Record<string, string> = {
  review: 'the commit reviewed',
};

/** "7d", "36h", "2h30m" in ms; "off" is 0 (no limit); null when not a duration. */
export function maxAgeMs(text: string): number | null {
  const s = text.trim();
  if (s === 'off') return 0;
  try {
    return parseDuration(s, 'max_age');
  } catch {
    return null;
  }
}

export const validMaxAge = (text: string) => maxAgeMs(text) != null;

/** The limit that applies to an item: its own `freshness.max_age` (off = none), else the home's. */
export function itemMaxAge(item: WorkItem, policy: FrontierPolicy): number | null {
  const own = item.freshness?.max_age;
  if (own != null) {
    const ms = maxAgeMs(own);
    return ms ? ms : null;
  }
  return policy.max_age_ms;
}

export interface FreshnessFacts {
  nowMs: number;
  policy: FrontierPolicy;
  /** The checkout's HEAD commit (null outside git); asked only when an item names a commit. */
  head: () => string | null;
  ancestry: (commit: string) => Ancestry;
  /** Records a moment at which the answer flips (the result cache stays valid only before it). */
  timeSeen: (t: number) => void;
}

export interface Flag {
  code: 'stale_commit' | 'stale_age' | 'evidence_missing';
  detail: string;
}

const short = (sha: string) => sha.slice(0, 12);

function commitFlag(f: FreshnessFacts, what: string, commit: string): Flag | null {
  const head = f.head();
  if (!head) return { code: 'stale_commit', detail: `${what} observed on ${short(commit)}; the checkout's commit is unknown (not a git checkout): recheck it` };
  if (head.startsWith(commit) || commit.startsWith(head)) return null;
  const a = f.ancestry(commit);
  if (a === 'same' || a === 'other') return null;
  if (a === 'unknown') return { code: 'stale_commit', detail: `${what} observed on ${short(commit)}, which this repository does not have (HEAD ${short(head)}): recheck it` };
  return { code: 'stale_commit', detail: `${what} observed on ${short(commit)}; HEAD has moved past it to ${short(head)}: recheck before building on it` };
}

/** Every flag of the item, most important first (the first one is the entry's code). */
export function freshnessFlags(f: FreshnessFacts, item: WorkItem): Flag[] {
  const flags: Flag[] = [];
  const o = item.observed;
  if (o?.evidence_commit) {
    const x = commitFlag(f, 'the newest evidence was', o.evidence_commit);
    if (x) flags.push(x);
  }
  if (o?.progress_commit && o.progress_commit !== o.evidence_commit) {
    const x = commitFlag(f, 'the last progress was', o.progress_commit);
    if (x) flags.push(x);
  }
  const limit = itemMaxAge(item, f.policy);
  if (limit && o?.evidence_at) {
    const at = Date.parse(o.evidence_at);
    if (!Number.isNaN(at)) {
      f.timeSeen(at + limit);
      if (f.nowMs >= at + limit) flags.push({ code: 'stale_age', detail: `the newest evidence (${o.evidence_at}) is older than ${item.freshness?.max_age ? `its freshness.max_age ${item.freshness.max_age}` : "the home's freshness.max_age"}: recheck it` });
    }
  }
  const needs = item.action ? COMMIT_EVIDENCE_ACTIONS[item.action] : undefined;
  if (needs && !o?.evidence_commit) {
    flags.push({ code: 'evidence_missing', detail: `a ${item.action} needs evidence naming ${needs}: holon evidence ${item.id} "what you reviewed" --commit SHA` });
  }
  return flags;
}
