import { claimLive, sameHolder } from './claims.js';
import { covers, parseScope, type Scope } from './decision-scope.js';
import type { CheckName, ReasonCode } from './frontier-codes.js';
import { normalizeDecisionScope, parseResumeCondition } from './graph-fields.js';
import { cycleText } from './graph-check.js';
import { COMMIT_EVIDENCE_ACTIONS, freshnessFlags, NO_POLICY, type Ancestry, type FreshnessFacts, type FrontierPolicy } from './frontier-freshness.js';
import { exclusionOf, relatedItems, replacementOf } from './roles.js';
import type { WorkItem } from './types.js';
import { scopesOverlap } from './write-scope.js';
import { isLive, waitKey as waitName } from './wait-matching.js';

/** Whether an environment capability is usable, and why not. */
export interface CapabilityState {
  available: boolean;
  /** verified (probe passed), declared (no probe), failed (probe failed), unverified (probe never ran). */
  status: 'verified' | 'declared' | 'failed' | 'unverified';
  detail: string;
}

/** The checkout the command runs in. */
export interface Workspace {
  git: boolean;
  /** The names this repository answers to (origin URL, owner/name, name, folder). */
  repo_ids: string[];
  repo: string | null;
  branch: string | null;
  /** A linked `git worktree` (its git dir is not the common dir), not the repository's main checkout. */
  worktree: boolean;
  /** The repository's common dir (one per repository, shared by its worktrees); null outside git. */
  common: string | null;
}

/** Everything the evaluator reads; the store assembles it, the evaluator never does I/O. */
export interface FrontierInput {
  agent: string;
  /** `agent:NAME`: whose claims count as "own". */
  holder: string;
  nowMs: number;
  /** Every agent's items: dependencies, gates and leases cross agents. */
  items: WorkItem[];
  capabilities: Map<string, CapabilityState>;
  /** Called only when an item names a repo or branch (keeps git calls off the common path). */
  workspace: () => Workspace;
  /** Resources of admitted events of an agent (for resume_when event:...). */
  admittedEvents: (agent: string) => Map<string, number>;
  /**
   * Why a budget stops the item now (its own or its agent's day; detail null: it does not), with the
   * moment the answer flips by the clock alone (the day ends, a run in flight spends `time`); null when
   * no budget applies and nothing flips.
   */
  budget?: (item: WorkItem) => { detail: string | null; untilMs: number | null; code?: 'budget_invalid' } | null;
  /** The checkout's HEAD commit; called only when an item records a commit (freshness). */
  head: () => string | null;
  /** How a recorded commit relates to HEAD; called only when it differs from HEAD. */
  ancestry: (commit: string) => Ancestry;
  /** The home's defaults: freshness.max_age and workspace.require_worktree from holon.yaml. */
  policy?: FrontierPolicy;
  /** The common dir of the repository holding the home (null: not in git); asked by the worktree guard. */
  homeRepo?: () => string | null;
}

export interface GateRef {
  item: WorkItem;
  scope: Scope;
  decision: 'approved' | 'rejected' | null;
  pending: boolean;
}

export interface Lease {
  item: WorkItem;
  holder: string;
  scopes: string[];
}

/** Indexes built once per command. */
export interface Prepared {
  input: FrontierInput;
  byId: Map<string, WorkItem>;
  cycles: Map<string, string[]>;
  gatesByKind: Map<string, GateRef[]>;
  coverMemo: Map<string, GateRef[]>;
  leasesByRepo: Map<string, Lease[]>;
  /** Items naming an item as a successor, for role exclusions (only items with a role are indexed). */
  predecessors: Map<string, WorkItem[]>;
  /** explain: build every passed check's detail too. */
  verbose: boolean;
  /** What the freshness check reads, built once per command (on first use). */
  facts?: FreshnessFacts;
  /** The time window in which every verdict stays the same (a result cache may be reused inside it). */
  bounds: TimeBounds;
}

export interface TimeBounds {
  from: number;
  until: number;
}

/** Records a moment at which a time-dependent answer flips (a lease end, an at: condition). */
export function timeSeen(b: TimeBounds, nowMs: number, t: number): void {
  if (Number.isNaN(t)) return;
  if (t <= nowMs) b.from = Math.max(b.from, t);
  else b.until = Math.min(b.until, t);
}

/** claimLive, remembering when the answer would change. */
export function liveClaim(p: { input: FrontierInput; bounds: TimeBounds }, c: WorkItem['claim']): boolean {
  if (c?.expires_at) timeSeen(p.bounds, p.input.nowMs, Date.parse(c.expires_at));
  return claimLive(c, p.input.nowMs);
}

export interface CheckResult {
  check: CheckName;
  pass: boolean;
  code: ReasonCode | 'ok';
  detail: string;
  /** Gates that would unblock the item (for needs_decision). */
  gates?: string[];
  /** Own live claim (sorts first). */
  own?: boolean;
}

/** A passed check; its detail is built only when explain asks (the frontier needs none). */
const PASSED = new Map<CheckName, CheckResult>();
const ok = (p: Prepared, check: CheckName, detail: () => string, extra?: Partial<CheckResult>): CheckResult => {
  if (!p.verbose && !extra) {
    let r = PASSED.get(check);
    if (!r) PASSED.set(check, (r = Object.freeze({ check, pass: true, code: 'ok', detail: '' }) as CheckResult));
    return r;
  }
  return { check, pass: true, code: 'ok', detail: extra?.detail ?? detail(), gates: undefined, own: extra?.own };
};
// One object shape for every result (no spreads): this runs 10,000 times in a process that just started.
const fail = (check: CheckName, code: ReasonCode, detail: string, gates?: string[]): CheckResult => ({ check, pass: false, code, detail, gates, own: undefined });


function checkStatus(p: Prepared, item: WorkItem): CheckResult {
  const agent = p.input.agent;
  if (item.agent && item.agent !== agent) return fail('status', 'assigned_to_other', `assigned to agent ${item.agent}, not ${agent}`);
  if (item.status === 'done') return fail('status', 'status_done', 'status done');
  if (item.superseded_by) return fail('status', 'superseded', `superseded by ${item.superseded_by}`);
  if (item.status === 'blocked') return fail('status', item.blocker?.reason.startsWith('budget_exhausted') ? 'budget_exhausted' : 'blocked', item.blocker ? `blocked: ${item.blocker.reason} (recovery: ${item.blocker.recovery})` : 'status blocked');
  if (item.blocker) return fail('status', 'blocked', `blocker: ${item.blocker.reason} (recovery: ${item.blocker.recovery})`);
  // A deferred item's budget is checked too: a met resume_when must not offer an item its budget stops.
  if (item.status === 'deferred') return budgetStop(p, item) ?? ok(p, 'status', () => 'deferred: its resume_when conditions decide');
  if (item.class === 'user_gate') {
    const ds = normalizeDecisionScope(item.decision_scope);
    if (ds?.decision) return fail('status', 'gate_decided', `gate ${ds.decision}${ds.decided_by ? ` by ${ds.decided_by}` : ''}`);
    return fail('status', 'decision_required', `a person must decide ${ds?.scope ?? '(no decision_scope)'}: holon decide ${item.id} --approve|--reject`);
  }
  if (item.class === 'user_action') return fail('status', 'user_action', "a person's task");
  return budgetStop(p, item) ?? ok(p, 'status', () => `status ${item.status}, class ${item.class}`);
}

/** The budget's verdict on the item: spent (or malformed) fails the status check; it notes when that flips. */
function budgetStop(p: Prepared, item: WorkItem): CheckResult | null {
  const spent = p.input.budget?.(item);
  if (!spent) return null;
  if (spent.untilMs !== null) timeSeen(p.bounds, p.input.nowMs, spent.untilMs);
  return spent.detail === null ? null : fail('status', spent.code ?? 'budget_exhausted', spent.detail);
}

/** Follows superseded_by to the item that replaced `id` (bounded, so hand-made loops end). */
const resolveReplacement = (p: Prepared, id: string): WorkItem | undefined => replacementOf((x) => p.byId.get(x), id);

function checkDependencies(p: Prepared, item: WorkItem): CheckResult {
  if (!item.depends_on.length) return ok(p, 'dependencies', () => 'no dependencies');
  const cycle = p.cycles.get(item.id);
  if (cycle) return fail('dependencies', 'dependency_cycle', `cycle: ${cycleText(cycle, item.id)}`);
  const missing: string[] = [];
  const rejected: string[] = [];
  const open: string[] = [];
  for (const d of item.depends_on) {
    const dep = resolveReplacement(p, d);
    if (!dep) missing.push(d);
    else if (dep.class === 'user_gate' && normalizeDecisionScope(dep.decision_scope)?.decision === 'rejected') rejected.push(d);
    else if (dep.status !== 'done') open.push(dep.id === d ? `${d} (${dep.status})` : `${d} -> ${dep.id} (${dep.status})`);
  }
  if (missing.length) return fail('dependencies', 'dependency_missing', `no such item: ${missing.join(', ')}`);
  if (rejected.length) return fail('dependencies', 'dependency_open', `depends on rejected gate ${rejected.join(', ')}`);
  if (open.length) return fail('dependencies', 'dependency_open', `waits for ${open.join(', ')}`);
  return ok(p, 'dependencies', () => `all done: ${item.depends_on.join(', ')}`);
}

/**
 * Whether an event admitted last at `lastMs` (undefined: none) meets an `event:` condition set at
 * `since` (the item's resume_since). Without a readable one (a record written by hand or by an older
 * holon), any admitted event counts, as it always did.
 */
function eventSince(lastMs: number | undefined, since: unknown): boolean {
  if (lastMs === undefined) return false;
  const from = typeof since === 'string' ? Date.parse(since) : NaN;
  return Number.isNaN(from) || lastMs >= Math.floor(from / 1000) * 1000;
}

/** Which resume_when condition holds now, if any, and the invalid ones. */
function resumeState(p: Prepared, item: WorkItem): { met: string[]; unmet: string[]; invalid: string[] } {
  const met: string[] = [];
  const unmet: string[] = [];
  const invalid: string[] = [];
  for (const text of item.resume_when) {
    const c = parseResumeCondition(text);
    if ('error' in c) {
      invalid.push(c.error);
      continue;
    }
    let yes = false;
    if (c.kind === 'at') {
      timeSeen(p.bounds, p.input.nowMs, c.ms);
      yes = p.input.nowMs >= c.ms;
    }
    else if (c.kind === 'done') yes = resolveReplacement(p, c.id)?.status === 'done';
    else if (c.kind === 'event') yes = eventSince(p.input.admittedEvents(item.agent || p.input.agent).get(c.resource), item.extra.resume_since);
    else yes = p.input.capabilities.get(c.name)?.available === true;
    (yes ? met : unmet).push(c.text);
  }
  return { met, unmet, invalid };
}

function checkWaits(p: Prepared, item: WorkItem): CheckResult {
  const live = item.waits.filter(isLive);
  const triggered = live.filter((w) => w.status === 'triggered');
  if (triggered.length) return fail('waits', 'wait_triggered', `woken: ${triggered.map(waitName).join(', ')}`);
  const monitor = item.class === 'continuous_monitor';
  if (live.length) {
    // A timer wait is next due at its timer's time, not at the fallback recheck after it.
    const next = live.map((w) => ({ at: w.due_at ?? w.recheck_at, due: Boolean(w.due_at) })).filter((x) => x.at).sort((a, b) => (a.at! < b.at! ? -1 : 1))[0];
    const what = live.map(waitName).join(', ');
    return monitor
      ? fail('waits', 'not_due', `next check ${next ? `at ${next.at}` : 'when woken'} (${what})`)
      : fail('waits', 'waiting', `waits for ${what}${next ? ` (${next.due ? 'due' : 'recheck'} at ${next.at})` : ''}`);
  }
  const deferred = item.status === 'deferred';
  if (!item.resume_when.length) {
    if (deferred) return fail('waits', 'deferred', 'deferred with no resume_when: reopen it by hand when it is time');
    // A monitor is due only at its next check; with none it is not new work for anyone to pick up.
    if (monitor) return fail('waits', 'monitor_unscheduled', `a continuous_monitor with no next check: holon wait ${item.id} --for timer --in 1h (or edit --add-resume-when at:ISO)`);
    return ok(p, 'waits', () => 'no live waits');
  }
  const r = resumeState(p, item);
  if (r.invalid.length) return fail('waits', 'resume_invalid', r.invalid.join('; '));
  if (r.met.length) return deferred ? fail('waits', 'resume_ready', `met: ${r.met.join(', ')}`) : ok(p, 'waits', () => `resume_when met: ${r.met.join(', ')}`);
  const code = deferred ? 'deferred' : monitor ? 'not_due' : 'resume_pending';
  return fail('waits', code, `until ${r.unmet.join(' or ')}`);
}

/** The gates covering one need, looked up once per distinct need (many items share a few scopes). */
function coveringGates(p: Prepared, need: string, s: Scope): GateRef[] {
  let list = p.coverMemo.get(need);
  if (!list) {
    list = [...(p.gatesByKind.get(s.kind) ?? []), ...(p.gatesByKind.get('*') ?? [])].filter((g) => covers(g.scope, s));
    p.coverMemo.set(need, list);
  }
  return list;
}

export function checkGates(p: Prepared, item: WorkItem): CheckResult {
  if (!item.needs_decision.length) return ok(p, 'gates', () => 'needs no decision');
  const invalid: string[] = [];
  const rejected: string[] = [];
  const missing: string[] = [];
  const pending: string[] = [];
  const pendingGates: string[] = [];
  const approved: string[] = [];
  for (const need of item.needs_decision) {
    const s = parseScope(need);
    if ('error' in s) {
      invalid.push(s.error);
      continue;
    }
    const cover = coveringGates(p, need, s).filter((g) => g.item.id !== item.id);
    const rej = cover.find((g) => g.decision === 'rejected');
    const app = cover.find((g) => g.decision === 'approved');
    if (rej) rejected.push(`${need} (rejected in ${rej.item.id})`);
    else if (app) approved.push(`${need} (approved in ${app.item.id})`);
    else if (cover.some((g) => g.pending)) {
      const ids = cover.filter((g) => g.pending).map((g) => g.item.id);
      pending.push(`${need} (gate ${ids.join(', ')})`);
      pendingGates.push(...ids);
    } else missing.push(need);
  }
  if (rejected.length) return fail('gates', 'gate_rejected', rejected.join('; '));
  if (invalid.length) return fail('gates', 'gate_invalid', invalid.join('; '));
  if (missing.length) return fail('gates', 'gate_missing', `no user_gate covers ${missing.join(', ')}: holon new "..." --class user_gate --decision-scope ${missing[0]}`);
  if (pending.length) return fail('gates', 'gate_pending', `undecided: ${pending.join('; ')}`, [...new Set(pendingGates)]);
  return ok(p, 'gates', () => approved.join('; '));
}

function checkClaims(p: Prepared, item: WorkItem): CheckResult {
  const me = p.input.holder;
  const c = item.claim!;
  const live = liveClaim(p, c);
  if (live && !sameHolder(c.holder, me)) return fail('claims', 'claimed_by_other', `claimed by ${c.holder}${c.expires_at ? ` until ${c.expires_at}` : ''}`);
  const excluded = item.exclude.length ? exclusionOf(item, me, () => relatedItems(item, (id) => p.byId.get(id), p.predecessors.get(item.id) ?? [])) : null;
  if (excluded) return fail('claims', 'excluded', excluded);
  if (live) return ok(p, 'claims', () => `claimed by you${c.expires_at ? ` until ${c.expires_at}` : ''}`, { own: true, detail: `claimed by you${c.expires_at ? ` until ${c.expires_at}` : ''}` });
  return ok(p, 'claims', () => item.claim ? `unclaimed (last claim by ${c.holder} ended${c.expires_at ? ` ${c.expires_at}` : ''})` : 'unclaimed');
}

function checkCapabilities(p: Prepared, item: WorkItem): CheckResult {
  if (!item.requires.length) return ok(p, 'capabilities', () => 'requires nothing');
  const missing: string[] = [];
  for (const r of item.requires) {
    const s = p.input.capabilities.get(r);
    if (!s) missing.push(`${r} (not declared in holon.yaml or AGENTS.md)`);
    else if (!s.available) missing.push(`${r} (${s.detail})`);
  }
  if (missing.length) return fail('capabilities', 'capability_missing', missing.join('; '));
  return ok(p, 'capabilities', () => `available: ${item.requires.join(', ')}`);
}

export const repoKey = (item: WorkItem) => item.repo ?? '';

function checkWorkspace(p: Prepared, item: WorkItem): CheckResult {
  if (item.repo || item.branch) {
    const ws = p.input.workspace();
    if (!ws.git) return fail('workspace', item.repo ? 'repo_mismatch' : 'branch_mismatch', 'not in a git checkout');
    if (item.repo && !ws.repo_ids.includes(item.repo)) return fail('workspace', 'repo_mismatch', `item wants repo ${item.repo}; this checkout is ${ws.repo ?? 'unknown'}`);
    if (item.branch && ws.branch !== item.branch) return fail('workspace', 'branch_mismatch', `item wants branch ${item.branch}; the checkout is on ${ws.branch ?? 'a detached HEAD'}`);
  }
  const worktree = requiresWorktree(p, item);
  if (worktree) {
    // A matching repository is necessary, never sufficient: the main checkout is shared by everyone.
    const ws = p.input.workspace();
    if (!ws.git) return fail('workspace', 'shared_checkout', 'needs a dedicated git worktree; this is not a git checkout');
    if (!ws.worktree) return fail('workspace', 'shared_checkout', `needs a dedicated git worktree; this is the main checkout of ${ws.repo ?? 'the repository'} (shared): git worktree add ../${ws.repo?.split('/').pop() ?? 'repo'}-${item.id} ${item.branch ? item.branch : `-b ${item.id}`}, and run holon there`);
    // Without a repo of its own, the item belongs to the home's repository: a worktree of another one is not it.
    const home = item.repo ? null : p.input.homeRepo?.();
    if (home && ws.common !== home) return fail('workspace', 'repo_mismatch', `needs a worktree of the home's repository (${home}); this worktree belongs to ${ws.repo ?? 'another repository'}`);
  }
  if (item.write_scope.length) {
    for (const l of p.leasesByRepo.get(repoKey(item)) ?? []) {
      if (l.item.id === item.id || sameHolder(l.holder, p.input.holder)) continue;
      const hit = scopesOverlap(item.write_scope, l.scopes);
      if (hit) return fail('workspace', 'write_scope_conflict', `${hit[0]} overlaps ${hit[1]} of ${l.item.id}, leased by ${l.holder}`);
    }
  }
  return ok(p, 'workspace', () => {
    const parts = [item.repo && `repo ${item.repo}`, item.branch && `branch ${item.branch}`, worktree && 'in a linked worktree', item.write_scope.length && `write scope free`].filter(Boolean);
    return parts.length ? parts.join(', ') : 'no workspace constraint';
  });
}

/** The item's own `workspace.require_worktree`, else the home's. */
export const requiresWorktree = (p: Prepared, item: WorkItem) => item.workspace?.require_worktree ?? (p.input.policy ?? NO_POLICY).require_worktree;

/**
 * Freshness and evidence: passes always (a stale item is still the right work), but flags the item
 * with the first of its flags as code; flagged items sort after fresh ones of the same priority.
 */
function checkFreshness(p: Prepared, item: WorkItem): CheckResult {
  // Most items record nothing and need no evidence: no facts object, no git.
  if (!item.observed && !(item.action && COMMIT_EVIDENCE_ACTIONS[item.action])) return ok(p, 'freshness', () => 'no evidence recorded yet; nothing to recheck');
  const { input, bounds } = p;
  const facts = (p.facts ??= { nowMs: input.nowMs, policy: input.policy ?? NO_POLICY, head: input.head, ancestry: input.ancestry, timeSeen: (t) => timeSeen(bounds, input.nowMs, t) });
  const flags = freshnessFlags(facts, item);
  if (flags.length) return { check: 'freshness', pass: true, code: flags[0].code, detail: flags.map((f) => f.detail).join('; '), gates: undefined, own: undefined };
  return ok(p, 'freshness', () => (item.observed ? 'evidence and progress current' : 'no evidence recorded yet; nothing to recheck'));
}

/** The checks in SPEC order; both the frontier and explain run exactly these. */
export const CHECK_FNS: Array<(p: Prepared, item: WorkItem) => CheckResult> = [
  checkStatus, checkDependencies, checkWaits, checkGates, checkClaims, checkCapabilities, checkWorkspace, checkFreshness,
];
