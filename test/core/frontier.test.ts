import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeFrontier, explain, prepare, evaluate, runnableInOrder } from '../../src/core/frontier.js';
import { CHECKS, REASONS } from '../../src/core/frontier-codes.js';
import type { WorkItem } from '../../src/core/types.js';
import { caps, HEAD, input, mk, NOW, wait } from './frontier-fixtures.js';

const gate = (id: string, scope: string, decision: 'approved' | 'rejected' | null = null, over: Partial<WorkItem> = {}) =>
  mk({ id, class: 'user_gate', decision_scope: { scope, decision }, status: decision ? 'done' : 'open', ...over });
/** What an item's body recorded: the newest evidence's commit and time. */
const ev = (commit: string | null, at = '2026-11-30T05:00:00Z') => ({ evidence_at: at, evidence_commit: commit, progress_commit: null });
const claim = (holder: string, expires_at: string | null) => ({ holder, claimed_at: '2026-11-30T05:00:00Z', expires_at, version: 1, epoch: 1 });

// Each row: the items of a home, the item under test, the code and channel it must get.
const CASES: Array<{ name: string; items: WorkItem[]; id: string; code: string; channel: string; over?: Parameters<typeof input>[1] }> = [
  { name: 'open task with nothing in the way', items: [mk({ id: 'w-a' })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'done', items: [mk({ id: 'w-a', status: 'done' })], id: 'w-a', code: 'status_done', channel: 'closed' },
  { name: 'superseded', items: [mk({ id: 'w-a', superseded_by: 'w-b' }), mk({ id: 'w-b' })], id: 'w-a', code: 'superseded', channel: 'closed' },
  { name: 'status blocked', items: [mk({ id: 'w-a', status: 'blocked' })], id: 'w-a', code: 'blocked', channel: 'not_runnable' },
  { name: 'open with a business blocker', items: [mk({ id: 'w-a', blocker: { reason: 'outage', recovery: 'retry', since: '' } })], id: 'w-a', code: 'blocked', channel: 'not_runnable' },
  { name: "another agent's item", items: [mk({ id: 'w-a', agent: 'peer' })], id: 'w-a', code: 'assigned_to_other', channel: 'closed' },
  { name: 'user_action', items: [mk({ id: 'w-a', class: 'user_action' })], id: 'w-a', code: 'user_action', channel: 'needs_action' },
  { name: 'pending user_gate', items: [gate('w-g', 'api:action:x')], id: 'w-g', code: 'decision_required', channel: 'needs_decision' },
  { name: 'decided user_gate left open', items: [gate('w-g', 'api:action:x', 'approved', { status: 'open' })], id: 'w-g', code: 'gate_decided', channel: 'closed' },
  { name: 'blocker class is recovery work', items: [mk({ id: 'w-a', class: 'blocker' })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  // dependencies
  { name: 'dependency done', items: [mk({ id: 'w-a', depends_on: ['w-b'] }), mk({ id: 'w-b', status: 'done' })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'dependency open', items: [mk({ id: 'w-a', depends_on: ['w-b'] }), mk({ id: 'w-b' })], id: 'w-a', code: 'dependency_open', channel: 'not_runnable' },
  { name: 'dependency missing', items: [mk({ id: 'w-a', depends_on: ['w-zz'] })], id: 'w-a', code: 'dependency_missing', channel: 'not_runnable' },
  { name: 'dependency cycle', items: [mk({ id: 'w-a', depends_on: ['w-b'] }), mk({ id: 'w-b', depends_on: ['w-a'] })], id: 'w-a', code: 'dependency_cycle', channel: 'not_runnable' },
  { name: 'depends on a user_action that is open', items: [mk({ id: 'w-a', depends_on: ['w-u'] }), mk({ id: 'w-u', class: 'user_action' })], id: 'w-a', code: 'dependency_open', channel: 'not_runnable' },
  { name: 'dependency superseded by a done item', items: [mk({ id: 'w-a', depends_on: ['w-b'] }), mk({ id: 'w-b', superseded_by: 'w-c' }), mk({ id: 'w-c', status: 'done' })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'dependency superseded by an open item', items: [mk({ id: 'w-a', depends_on: ['w-b'] }), mk({ id: 'w-b', superseded_by: 'w-c' }), mk({ id: 'w-c' })], id: 'w-a', code: 'dependency_open', channel: 'not_runnable' },
  { name: 'dependency on a rejected gate', items: [mk({ id: 'w-a', depends_on: ['w-g'] }), gate('w-g', 'api:action:x', 'rejected')], id: 'w-a', code: 'dependency_open', channel: 'not_runnable' },
  // waits and resume_when
  { name: 'active wait', items: [mk({ id: 'w-a', waits: [wait('active')] })], id: 'w-a', code: 'waiting', channel: 'waiting' },
  { name: 'triggered wait', items: [mk({ id: 'w-a', waits: [wait('triggered'), wait('active', { id: 'wt-2' })] })], id: 'w-a', code: 'wait_triggered', channel: 'resume_candidates' },
  { name: 'settled waits do not hold', items: [mk({ id: 'w-a', waits: [wait('resolved'), wait('expired'), wait('cancelled')] })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'monitor before its check time', items: [mk({ id: 'w-a', class: 'continuous_monitor', waits: [wait('active')] })], id: 'w-a', code: 'not_due', channel: 'waiting' },
  { name: 'monitor with no schedule at all', items: [mk({ id: 'w-a', class: 'continuous_monitor' })], id: 'w-a', code: 'monitor_unscheduled', channel: 'not_runnable' },
  { name: 'monitor whose check time has come', items: [mk({ id: 'w-a', class: 'continuous_monitor', resume_when: ['at:2026-11-30T05:00:00Z'] })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'monitor with resume_when at: in the future', items: [mk({ id: 'w-a', class: 'continuous_monitor', resume_when: ['at:2026-12-01T00:00:00Z'] })], id: 'w-a', code: 'not_due', channel: 'waiting' },
  { name: 'deferred without condition', items: [mk({ id: 'w-a', status: 'deferred' })], id: 'w-a', code: 'deferred', channel: 'waiting' },
  { name: 'deferred, at: not reached', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['at:2026-11-30T07:00:00Z'] })], id: 'w-a', code: 'deferred', channel: 'waiting' },
  { name: 'deferred, at: reached', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['at:2026-11-30T06:00:00Z'] })], id: 'w-a', code: 'resume_ready', channel: 'resume_candidates' },
  { name: 'deferred, done: met', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['done:w-b'] }), mk({ id: 'w-b', status: 'done' })], id: 'w-a', code: 'resume_ready', channel: 'resume_candidates' },
  { name: 'deferred, done: unmet', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['done:w-b'] }), mk({ id: 'w-b' })], id: 'w-a', code: 'deferred', channel: 'waiting' },
  { name: 'deferred, event: admitted', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['event:github:acme/app#101'] })], id: 'w-a', code: 'resume_ready', channel: 'resume_candidates', over: { events: ['github:acme/app#101'] } },
  // budgets (the store's budget callback): a deferred item's budget counts, a malformed one says so, a pending flip stops nothing
  { name: 'deferred, at: reached, budget spent', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['at:2026-11-30T06:00:00Z'] })], id: 'w-a', code: 'budget_exhausted', channel: 'not_runnable', over: { budget: () => ({ detail: 'budget spent: runs 1 of 1', untilMs: null }) } },
  { name: 'malformed budget', items: [mk({ id: 'w-a' })], id: 'w-a', code: 'budget_invalid', channel: 'not_runnable', over: { budget: () => ({ detail: 'w-a budget: unknown budget figure "coins"', untilMs: null, code: 'budget_invalid' }) } },
  { name: 'budget not spent yet, a run in flight spends it later', items: [mk({ id: 'w-a' })], id: 'w-a', code: 'runnable', channel: 'runnable', over: { budget: () => ({ detail: null, untilMs: NOW + 60_000 }) } },
  { name: 'deferred, event: not admitted', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['event:github:acme/app#101'] })], id: 'w-a', code: 'deferred', channel: 'waiting', over: { events: ['github:acme/app#102'] } },
  { name: 'deferred, capability: available', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['capability:shell'] })], id: 'w-a', code: 'resume_ready', channel: 'resume_candidates' },
  { name: 'deferred, capability: missing', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['capability:gpu'] })], id: 'w-a', code: 'deferred', channel: 'waiting' },
  { name: 'deferred, one of two conditions met', items: [mk({ id: 'w-a', status: 'deferred', resume_when: ['capability:gpu', 'at:2026-11-01T00:00:00Z'] })], id: 'w-a', code: 'resume_ready', channel: 'resume_candidates' },
  { name: 'open with unmet resume_when', items: [mk({ id: 'w-a', resume_when: ['at:2026-12-01T00:00:00Z'] })], id: 'w-a', code: 'resume_pending', channel: 'waiting' },
  { name: 'bad resume_when', items: [mk({ id: 'w-a', resume_when: ['someday'] })], id: 'w-a', code: 'resume_invalid', channel: 'not_runnable' },
  // gates
  { name: 'needs a decision, gate pending', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] }), gate('w-g', 'api:action:x')], id: 'w-a', code: 'gate_pending', channel: 'not_runnable' },
  { name: 'needs a decision, gate approved', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] }), gate('w-g', 'api:action:x', 'approved')], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'needs a decision, gate rejected', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] }), gate('w-g', 'api:action:x', 'rejected')], id: 'w-a', code: 'gate_rejected', channel: 'not_runnable' },
  { name: 'reject wins over approve', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] }), gate('w-g', 'api:action:x', 'approved'), gate('w-h', 'api:project:*', 'rejected')], id: 'w-a', code: 'gate_rejected', channel: 'not_runnable' },
  { name: 'no gate covers the need', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] })], id: 'w-a', code: 'gate_missing', channel: 'not_runnable' },
  { name: 'coarser gate of the same key covers', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] }), gate('w-g', 'api:lane:x', 'approved')], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'wildcard key covers', items: [mk({ id: 'w-a', needs_decision: ['api:goal:x'] }), gate('w-g', 'api:global:*', 'approved')], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'finer gate does not cover a coarser need', items: [mk({ id: 'w-a', needs_decision: ['api:project:x'] }), gate('w-g', 'api:action:x', 'approved')], id: 'w-a', code: 'gate_missing', channel: 'not_runnable' },
  { name: 'other kind does not cover', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] }), gate('w-g', 'release:action:x', 'approved')], id: 'w-a', code: 'gate_missing', channel: 'not_runnable' },
  { name: 'other key does not cover', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] }), gate('w-g', 'api:action:y', 'approved')], id: 'w-a', code: 'gate_missing', channel: 'not_runnable' },
  { name: 'a user_action with the same scope never satisfies a gate', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'] }), mk({ id: 'w-u', class: 'user_action', status: 'done', decision_scope: { scope: 'api:action:x', decision: 'approved' } })], id: 'w-a', code: 'gate_missing', channel: 'not_runnable' },
  { name: 'bad needs_decision', items: [mk({ id: 'w-a', needs_decision: ['api-change'] })], id: 'w-a', code: 'gate_invalid', channel: 'not_runnable' },
  // claims and exclusions
  { name: 'claimed by another, no expiry', items: [mk({ id: 'w-a', claim: claim('agent:peer', null) })], id: 'w-a', code: 'claimed_by_other', channel: 'not_runnable' },
  { name: 'lease of another, live', items: [mk({ id: 'w-a', claim: claim('agent:peer', '2026-11-30T06:00:01Z') })], id: 'w-a', code: 'claimed_by_other', channel: 'not_runnable' },
  { name: 'lease of another, expired', items: [mk({ id: 'w-a', claim: claim('agent:peer', '2026-11-30T06:00:00Z') })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'own claim (bare name by hand)', items: [mk({ id: 'w-a', claim: claim('main', null) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'excluded', items: [mk({ id: 'w-a', exclude: ['main'] })], id: 'w-a', code: 'excluded', channel: 'not_runnable' },
  { name: 'a claim does not bypass a gate', items: [mk({ id: 'w-a', needs_decision: ['api:action:x'], claim: claim('agent:main', null) }), gate('w-g', 'api:action:x')], id: 'w-a', code: 'gate_pending', channel: 'not_runnable' },
  // capabilities
  { name: 'capability declared', items: [mk({ id: 'w-a', requires: ['shell'] })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'capability not declared', items: [mk({ id: 'w-a', requires: ['gpu'] })], id: 'w-a', code: 'capability_missing', channel: 'not_runnable' },
  { name: 'capability probe failed', items: [mk({ id: 'w-a', requires: ['shell'] })], id: 'w-a', code: 'capability_missing', channel: 'not_runnable', over: { capabilities: caps({ shell: { available: false, status: 'failed', detail: 'probe failed' } }) } },
  // workspace
  { name: 'repo matches by name', items: [mk({ id: 'w-a', repo: 'app' })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'repo mismatch', items: [mk({ id: 'w-a', repo: 'acme/other' })], id: 'w-a', code: 'repo_mismatch', channel: 'not_runnable' },
  { name: 'not a git checkout', items: [mk({ id: 'w-a', repo: 'app' })], id: 'w-a', code: 'repo_mismatch', channel: 'not_runnable', over: { ws: { git: false, repo_ids: [], repo: null, branch: null, common: null } } },
  { name: 'branch mismatch', items: [mk({ id: 'w-a', branch: 'feature' })], id: 'w-a', code: 'branch_mismatch', channel: 'not_runnable' },
  { name: 'detached HEAD', items: [mk({ id: 'w-a', branch: 'main' })], id: 'w-a', code: 'branch_mismatch', channel: 'not_runnable', over: { ws: { branch: null } } },
  { name: 'overlapping write scope leased by another', items: [mk({ id: 'w-a', write_scope: ['src/api/**'] }), mk({ id: 'w-b', write_scope: ['src/**'], claim: claim('agent:peer', null) })], id: 'w-a', code: 'write_scope_conflict', channel: 'not_runnable' },
  { name: 'disjoint write scope', items: [mk({ id: 'w-a', write_scope: ['src/api/**'] }), mk({ id: 'w-b', write_scope: ['src/ui/**'], claim: claim('agent:peer', null) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'overlap in another repo', items: [mk({ id: 'w-a', write_scope: ['src/**'], repo: 'app' }), mk({ id: 'w-b', write_scope: ['src/**'], repo: 'other', claim: claim('agent:peer', null) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'overlap with an expired lease', items: [mk({ id: 'w-a', write_scope: ['src/**'] }), mk({ id: 'w-b', write_scope: ['src/**'], claim: claim('agent:peer', '2026-11-30T05:59:59Z') })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'overlap with own lease', items: [mk({ id: 'w-a', write_scope: ['src/**'] }), mk({ id: 'w-b', write_scope: ['src/**'], claim: claim('agent:main', null) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  // workspace: the shared-checkout guard (issue 16)
  { name: 'needs a worktree, in the main checkout', items: [mk({ id: 'w-a', workspace: { require_worktree: true } })], id: 'w-a', code: 'shared_checkout', channel: 'not_runnable' },
  { name: 'needs a worktree, repo name matches but main checkout', items: [mk({ id: 'w-a', repo: 'acme/app', branch: 'main', workspace: { require_worktree: true } })], id: 'w-a', code: 'shared_checkout', channel: 'not_runnable' },
  { name: 'needs a worktree, in a linked worktree of the repo', items: [mk({ id: 'w-a', repo: 'acme/app', workspace: { require_worktree: true } })], id: 'w-a', code: 'runnable', channel: 'runnable', over: { ws: { worktree: true } } },
  { name: 'needs a worktree, worktree of another repo', items: [mk({ id: 'w-a', repo: 'acme/other', workspace: { require_worktree: true } })], id: 'w-a', code: 'repo_mismatch', channel: 'not_runnable', over: { ws: { worktree: true } } },
  { name: 'needs a worktree, no repo named: a worktree of the home repository', items: [mk({ id: 'w-a', workspace: { require_worktree: true } })], id: 'w-a', code: 'runnable', channel: 'runnable', over: { ws: { worktree: true }, homeRepo: () => '/src/app/.git' } },
  { name: 'needs a worktree, no repo named: a worktree of another repository', items: [mk({ id: 'w-a', workspace: { require_worktree: true } })], id: 'w-a', code: 'repo_mismatch', channel: 'not_runnable', over: { ws: { worktree: true, common: '/src/other/.git' }, homeRepo: () => '/src/app/.git' } },
  { name: 'needs a worktree, not a git checkout', items: [mk({ id: 'w-a', workspace: { require_worktree: true } })], id: 'w-a', code: 'shared_checkout', channel: 'not_runnable', over: { ws: { git: false, repo_ids: [], repo: null, branch: null, common: null } } },
  { name: 'home requires worktrees', items: [mk({ id: 'w-a' })], id: 'w-a', code: 'shared_checkout', channel: 'not_runnable', over: { policy: { max_age_ms: null, require_worktree: true } } },
  { name: 'home requires worktrees, the item opts out', items: [mk({ id: 'w-a', workspace: { require_worktree: false } })], id: 'w-a', code: 'runnable', channel: 'runnable', over: { policy: { max_age_ms: null, require_worktree: true } } },
  // claims: role exclusions (issue 16)
  { name: 'exclude role: the implementer of the dependency may not review it', items: [mk({ id: 'w-a', action: 'review', exclude: ['role:implementer'], depends_on: ['w-i'], observed: ev(HEAD) }), mk({ id: 'w-i', role: 'implementer', status: 'done', claim: claim('agent:main', '2026-11-30T05:30:00Z') })], id: 'w-a', code: 'excluded', channel: 'not_runnable' },
  { name: 'exclude role: another agent implemented it', items: [mk({ id: 'w-a', action: 'review', exclude: ['role:implementer'], depends_on: ['w-i'], observed: ev(HEAD) }), mk({ id: 'w-i', role: 'implementer', status: 'done', claim: claim('agent:peer', '2026-11-30T05:30:00Z') })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'exclude role: completed by this agent, review named as its successor', items: [mk({ id: 'w-a', exclude: ['role:implementer'] }), mk({ id: 'w-i', role: 'implementer', status: 'done', successors: ['w-a'], delivery: { result: 'r', evidence: [], outstanding: [], completed_at: '', completed_by: 'agent:main' } })], id: 'w-a', code: 'excluded', channel: 'not_runnable' },
  { name: 'exclude role: the related item serves another role', items: [mk({ id: 'w-a', exclude: ['role:implementer'], depends_on: ['w-i'] }), mk({ id: 'w-i', role: 'monitor', status: 'done', claim: claim('agent:main', null) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  // freshness and evidence (issue 16): flags, the item stays runnable
  { name: 'evidence on HEAD', items: [mk({ id: 'w-a', observed: ev(HEAD) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'evidence on a short sha of HEAD', items: [mk({ id: 'w-a', observed: ev('c3c3c3c') })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'evidence on a commit HEAD moved past', items: [mk({ id: 'w-a', observed: ev('c1c1c1c1') })], id: 'w-a', code: 'stale_commit', channel: 'runnable' },
  { name: 'last progress on a commit HEAD moved past', items: [mk({ id: 'w-a', observed: { evidence_at: null, evidence_commit: null, progress_commit: 'c2c2c2c2' } })], id: 'w-a', code: 'stale_commit', channel: 'runnable' },
  { name: 'evidence on a commit the repository lacks', items: [mk({ id: 'w-a', observed: ev('deadbeef') })], id: 'w-a', code: 'stale_commit', channel: 'runnable' },
  { name: 'evidence on another line of history is not stale', items: [mk({ id: 'w-a', observed: ev('x9x9x9x9') })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'evidence on a commit, outside git', items: [mk({ id: 'w-a', observed: ev('c1c1c1c1') })], id: 'w-a', code: 'stale_commit', channel: 'runnable', over: { head: () => null } },
  { name: 'evidence older than the item max_age', items: [mk({ id: 'w-a', freshness: { max_age: '1d' }, observed: ev(HEAD, '2026-11-29T05:59:59Z') })], id: 'w-a', code: 'stale_age', channel: 'runnable' },
  { name: 'evidence within the item max_age', items: [mk({ id: 'w-a', freshness: { max_age: '1d' }, observed: ev(HEAD, '2026-11-29T06:00:01Z') })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'evidence older than the home max_age', items: [mk({ id: 'w-a', observed: ev(null, '2026-11-01T00:00:00Z') })], id: 'w-a', code: 'stale_age', channel: 'runnable', over: { policy: { max_age_ms: 7 * 86_400_000, require_worktree: false } } },
  { name: 'home max_age, the item turns it off', items: [mk({ id: 'w-a', freshness: { max_age: 'off' }, observed: ev(null, '2026-11-01T00:00:00Z') })], id: 'w-a', code: 'runnable', channel: 'runnable', over: { policy: { max_age_ms: 7 * 86_400_000, require_worktree: false } } },
  { name: 'a review without the commit reviewed', items: [mk({ id: 'w-a', action: 'review', observed: ev(null) })], id: 'w-a', code: 'evidence_missing', channel: 'runnable' },
  { name: 'a review with no evidence at all', items: [mk({ id: 'w-a', action: 'review' })], id: 'w-a', code: 'evidence_missing', channel: 'runnable' },
  { name: 'a review with the commit reviewed', items: [mk({ id: 'w-a', action: 'review', observed: ev(HEAD) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'stale evidence never hides an earlier failure', items: [mk({ id: 'w-a', observed: ev('c1c1c1c1'), needs_decision: ['api:action:x'] }), gate('w-g', 'api:action:x')], id: 'w-a', code: 'gate_pending', channel: 'not_runnable' },
];

describe('frontier filters', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const inp = input(c.items, c.over);
      const e = explain(inp, c.id);
      expect({ code: e.code, channel: e.channel }).toEqual({ code: c.code, channel: c.channel });
      // explain runs every check in SPEC order, and its first failure is the frontier's verdict.
      expect(e.checks.map((x) => x.check)).toEqual([...CHECKS]);
      // The first failure decides; with none, a flag of the last check (freshness) does.
      const decisive = e.checks.find((x) => !x.pass) ?? e.checks.find((x) => x.code !== 'ok');
      expect(decisive?.code ?? 'runnable').toBe(c.code);
      expect(e.runnable).toBe(c.channel === 'runnable');
      const v = evaluate(prepare(inp), inp.items.find((i) => i.id === c.id)!);
      expect(v.code).toBe(c.code);
      if (c.code !== 'runnable') expect(REASONS[c.code as keyof typeof REASONS].channel).toBe(c.channel);
      const f = computeFrontier(inp);
      if (c.channel !== 'closed') expect((f as any)[c.channel].map((x: any) => x.id)).toContain(c.id);
    });
  }
});

describe('the reason codes', () => {
  it('docs/frontier.md documents every code with its check, and every check has a code', () => {
    const doc = readFileSync(new URL('../../docs/frontier.md', import.meta.url), 'utf8');
    for (const [code, info] of Object.entries(REASONS)) expect(doc, code).toMatch(new RegExp(`^\\| \`${code}\` \\| ${info.check} \\|`, 'm'));
    for (const check of CHECKS) expect(Object.values(REASONS).some((r) => r.check === check), check).toBe(true);
  });
});

describe('the frontier as a whole', () => {
  it('seed 002: a gated P0 API change and an independent P1 test', () => {
    const items = [
      mk({ id: 'w-api', title: 'Change the public export API', priority: 'P0', needs_decision: ['api_change:action:export'] }),
      mk({ id: 'w-test', title: 'Characterization test', priority: 'P1', requires: ['shell'] }),
      gate('w-gate', 'api_change:action:export', null, { priority: 'P0' }),
    ];
    const f = computeFrontier(input(items));
    expect(f.runnable.map((r) => r.id)).toEqual(['w-test']);
    expect(f.not_runnable).toMatchObject([{ id: 'w-api', code: 'gate_pending' }]);
    expect(f.needs_decision).toMatchObject([{ id: 'w-gate', scope: 'api_change:action:export', blocks: ['w-api'] }]);
    // Approved: the P0 comes first.
    items[2] = gate('w-gate', 'api_change:action:export', 'approved');
    expect(computeFrontier(input(items)).runnable.map((r) => r.id)).toEqual(['w-api', 'w-test']);
    // Rejected: the P0 is blocked, the P1 still runs.
    items[2] = gate('w-gate', 'api_change:action:export', 'rejected');
    const r = computeFrontier(input(items));
    expect(r.runnable.map((x) => x.id)).toEqual(['w-test']);
    expect(r.not_runnable).toMatchObject([{ id: 'w-api', code: 'gate_rejected' }]);
  });

  it('orders own claim first, then priority, then age, then id', () => {
    const items = [
      mk({ id: 'w-none', created_at: '2026-01-01T00:00:00Z' }),
      mk({ id: 'w-p2', priority: 'P2', created_at: '2026-01-02T00:00:00Z' }),
      mk({ id: 'w-p0-new', priority: 'P0', created_at: '2026-01-05T00:00:00Z' }),
      mk({ id: 'w-p0-old', priority: 'P0', created_at: '2026-01-03T00:00:00Z' }),
      mk({ id: 'w-p0-old-b', priority: 'P0', created_at: '2026-01-03T00:00:00Z' }),
      mk({ id: 'w-mine', priority: 'P4', claim: claim('agent:main', null) }),
    ];
    expect(computeFrontier(input(items)).runnable.map((r) => r.id)).toEqual(['w-mine', 'w-p0-old', 'w-p0-old-b', 'w-p0-new', 'w-p2', 'w-none']);
    expect(computeFrontier(input([...items].reverse())).runnable.map((r) => r.id)).toEqual(['w-mine', 'w-p0-old', 'w-p0-old-b', 'w-p0-new', 'w-p2', 'w-none']);
  });

  it('orders flagged (stale, unproven) items after fresh ones of the same priority, never above a higher priority', () => {
    const items = [
      mk({ id: 'w-p1-stale-old', priority: 'P1', created_at: '2026-01-01T00:00:00Z', observed: ev('c1c1c1c1') }),
      mk({ id: 'w-p1-fresh-new', priority: 'P1', created_at: '2026-01-09T00:00:00Z', observed: ev(HEAD) }),
      mk({ id: 'w-p1-review', priority: 'P1', created_at: '2026-01-02T00:00:00Z', action: 'review' }),
      mk({ id: 'w-p2-fresh', priority: 'P2', created_at: '2026-01-01T00:00:00Z' }),
      mk({ id: 'w-p0-stale', priority: 'P0', created_at: '2026-01-05T00:00:00Z', observed: ev('deadbeef') }),
      mk({ id: 'w-p3-mine-stale', priority: 'P3', observed: ev('c2c2c2c2'), claim: claim('agent:main', null) }),
    ];
    const want = ['w-p3-mine-stale', 'w-p0-stale', 'w-p1-fresh-new', 'w-p1-stale-old', 'w-p1-review', 'w-p2-fresh'];
    const f = computeFrontier(input(items));
    expect(f.runnable.map((r) => r.id)).toEqual(want);
    expect(computeFrontier(input([...items].reverse())).runnable.map((r) => r.id)).toEqual(want);
    expect(f.runnable.map((r) => r.code)).toEqual(['stale_commit', 'stale_commit', 'runnable', 'stale_commit', 'evidence_missing', 'runnable']);
    expect(f.counts).toMatchObject({ runnable: 6, by_code: { runnable: 2, stale_commit: 3, evidence_missing: 1 } });
    // pick takes the same order.
    expect(runnableInOrder(prepare(input(items))).map((v) => v.item.id)).toEqual(want);
  });

  it('a budget that a run in flight will spend bounds the time the answer holds, runnable or deferred', () => {
    for (const item of [mk({ id: 'w-a' }), mk({ id: 'w-d', status: 'deferred', resume_when: ['at:2026-11-30T06:00:00Z'] })]) {
      const bounds = { from: -Infinity, until: Infinity };
      computeFrontier(input([item], { budget: () => ({ detail: null, untilMs: NOW + 60_000 }) }), { bounds });
      expect(bounds.until, item.id).toBe(NOW + 60_000);
    }
  });

  it('a freshness limit bounds the time the answer holds; git is asked only for items that record a commit', () => {
    const bounds = { from: -Infinity, until: Infinity };
    const at = '2026-11-29T12:00:00Z';
    const item = mk({ id: 'w-a', freshness: { max_age: '1d' }, observed: ev(null, at) });
    expect(computeFrontier(input([item]), { bounds }).runnable[0].code).toBe('runnable');
    expect(bounds.until).toBe(Date.parse(at) + 86_400_000);
    expect(computeFrontier(input([item], { nowMs: bounds.until })).runnable[0].code).toBe('stale_age');
    let heads = 0;
    let ancestries = 0;
    const counted = (items: WorkItem[]) => ({ ...input(items), head: () => (heads++, HEAD), ancestry: () => (ancestries++, 'ancestor' as const) });
    computeFrontier(counted([mk({ id: 'w-a' }), mk({ id: 'w-b', observed: ev(null) }), mk({ id: 'w-c', status: 'done', observed: ev('c1c1c1c1') })]));
    expect([heads, ancestries]).toEqual([0, 0]);
    computeFrontier(counted([mk({ id: 'w-a', observed: ev(HEAD) })]));
    expect([heads, ancestries]).toEqual([1, 0]);
    // An item stopped by an earlier check never reaches freshness: no git for it.
    computeFrontier(counted([mk({ id: 'w-a', observed: ev('c1c1c1c1'), requires: ['gpu'] })]));
    expect([heads, ancestries]).toEqual([1, 0]);
    computeFrontier(counted([mk({ id: 'w-a', observed: ev('c1c1c1c1') })]));
    expect([heads, ancestries]).toEqual([2, 1]);
  });

  it('explain shows every flag of the freshness check; the first is the code', () => {
    const e = explain(input([mk({ id: 'w-a', action: 'review', observed: { evidence_at: null, evidence_commit: null, progress_commit: 'c1c1c1c1' } })]), 'w-a');
    expect(e).toMatchObject({ channel: 'runnable', runnable: true, code: 'stale_commit' });
    const fresh = e.checks.at(-1)!;
    expect(fresh).toMatchObject({ check: 'freshness', pass: true, code: 'stale_commit' });
    expect(fresh.detail).toMatch(/last progress was observed on c1c1c1c1; HEAD has moved past it/);
    expect(fresh.detail).toMatch(/a review needs evidence naming the commit reviewed: holon evidence w-a/);
  });

  it('counts are computed before the display cap; needs_decision is never cut', () => {
    const items = [
      ...Array.from({ length: 5 }, (_, i) => mk({ id: `w-r${i}` })),
      ...Array.from({ length: 4 }, (_, i) => gate(`w-g${i}`, `api:action:k${i}`)),
      ...Array.from({ length: 3 }, (_, i) => mk({ id: `w-d${i}`, status: 'done' })),
    ];
    const f = computeFrontier(input(items), { limit: 2 });
    expect(f.runnable).toHaveLength(2);
    expect(f.truncated).toEqual({ runnable: 3 });
    expect(f.needs_decision).toHaveLength(4);
    expect(f.counts).toMatchObject({ runnable: 5, needs_decision: 4, closed: 3, total: 12, by_code: { runnable: 5, decision_required: 4, status_done: 3 } });
  });

  it('a gate blocks an item that also has an open dependency, in the frontier as in explain; a blocked item waits on no gate', () => {
    const items = [
      mk({ id: 'w-dep' }),
      mk({ id: 'w-a', needs_decision: ['release:action:app'], depends_on: ['w-dep'] }),
      mk({ id: 'w-parked', needs_decision: ['release:action:app'], status: 'blocked', blocker: { reason: 'r', recovery: 'x', since: '2026-11-30T05:00:00Z' } }),
      gate('w-g', 'release:project:app'),
    ];
    const f = computeFrontier(input(items));
    expect(f.not_runnable.find((e) => e.id === 'w-a')?.code).toBe('dependency_open');
    expect(f.needs_decision).toMatchObject([{ id: 'w-g', blocks: ['w-a'] }]);
    const e = explain(input(items), 'w-a');
    expect(e.checks.find((c) => c.check === 'gates')).toMatchObject({ pass: false, code: 'gate_pending' });
  });

  it("lists another agent's gate when it blocks this agent's item", () => {
    const items = [mk({ id: 'w-a', needs_decision: ['spend:project:cloud'] }), gate('w-g', 'spend:global:*', null, { agent: 'lead' })];
    const f = computeFrontier(input(items));
    expect(f.needs_decision).toMatchObject([{ id: 'w-g', agent: 'lead', blocks: ['w-a'] }]);
    expect(f.counts.closed).toBe(0);
  });

  it('calls git only when an item names a repo or branch', () => {
    let calls = 0;
    const base = input([mk({ id: 'w-a', write_scope: ['src/**'] })]);
    const ws = base.workspace;
    computeFrontier({ ...base, workspace: () => (calls++, ws()) });
    expect(calls).toBe(0);
    computeFrontier({ ...input([mk({ id: 'w-a', repo: 'app' })]), workspace: () => (calls++, ws()) });
    expect(calls).toBe(1);
  });

  it('explain agrees with the frontier on every item of a mixed home', () => {
    const items = CASES.flatMap((c, k) => c.items.map((i) => ({ ...i, id: `${i.id}-${k}`, depends_on: i.depends_on.map((d) => `${d}-${k}`), superseded_by: i.superseded_by && `${i.superseded_by}-${k}`, resume_when: i.resume_when.map((r) => (r.startsWith('done:') ? `${r}-${k}` : r)) })));
    const inp = input(items, { events: ['github:acme/app#101'] });
    const f = computeFrontier(inp);
    const listed = new Map<string, string>();
    for (const ch of ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable'] as const) for (const e of f[ch]) listed.set(e.id, e.code);
    for (const item of items.filter((i) => i.agent === 'main')) {
      const e = explain(inp, item.id);
      if (e.channel === 'closed') expect(listed.has(item.id)).toBe(false);
      else expect(listed.get(item.id)).toBe(e.code);
    }
    expect(NOW).toBeGreaterThan(0);
  });
});
