import { describe, expect, it } from 'vitest';
import { computeFrontier, explain, prepare, evaluate } from '../../src/core/frontier.js';
import { CHECKS, REASONS } from '../../src/core/frontier-codes.js';
import type { WorkItem } from '../../src/core/types.js';
import { caps, input, mk, NOW, wait } from './frontier-fixtures.js';

const gate = (id: string, scope: string, decision: 'approved' | 'rejected' | null = null, over: Partial<WorkItem> = {}) =>
  mk({ id, class: 'user_gate', decision_scope: { scope, decision }, status: decision ? 'done' : 'open', ...over });
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
  { name: 'not a git checkout', items: [mk({ id: 'w-a', repo: 'app' })], id: 'w-a', code: 'repo_mismatch', channel: 'not_runnable', over: { ws: { git: false, repo_ids: [], repo: null, branch: null } } },
  { name: 'branch mismatch', items: [mk({ id: 'w-a', branch: 'feature' })], id: 'w-a', code: 'branch_mismatch', channel: 'not_runnable' },
  { name: 'detached HEAD', items: [mk({ id: 'w-a', branch: 'main' })], id: 'w-a', code: 'branch_mismatch', channel: 'not_runnable', over: { ws: { branch: null } } },
  { name: 'overlapping write scope leased by another', items: [mk({ id: 'w-a', write_scope: ['src/api/**'] }), mk({ id: 'w-b', write_scope: ['src/**'], claim: claim('agent:peer', null) })], id: 'w-a', code: 'write_scope_conflict', channel: 'not_runnable' },
  { name: 'disjoint write scope', items: [mk({ id: 'w-a', write_scope: ['src/api/**'] }), mk({ id: 'w-b', write_scope: ['src/ui/**'], claim: claim('agent:peer', null) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'overlap in another repo', items: [mk({ id: 'w-a', write_scope: ['src/**'], repo: 'app' }), mk({ id: 'w-b', write_scope: ['src/**'], repo: 'other', claim: claim('agent:peer', null) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'overlap with an expired lease', items: [mk({ id: 'w-a', write_scope: ['src/**'] }), mk({ id: 'w-b', write_scope: ['src/**'], claim: claim('agent:peer', '2026-11-30T05:59:59Z') })], id: 'w-a', code: 'runnable', channel: 'runnable' },
  { name: 'overlap with own lease', items: [mk({ id: 'w-a', write_scope: ['src/**'] }), mk({ id: 'w-b', write_scope: ['src/**'], claim: claim('agent:main', null) })], id: 'w-a', code: 'runnable', channel: 'runnable' },
];

describe('frontier filters', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const inp = input(c.items, c.over);
      const e = explain(inp, c.id);
      expect({ code: e.code, channel: e.channel }).toEqual({ code: c.code, channel: c.channel });
      // explain runs every check in SPEC order, and its first failure is the frontier's verdict.
      expect(e.checks.map((x) => x.check)).toEqual([...CHECKS]);
      const firstFail = e.checks.find((x) => !x.pass);
      expect(firstFail?.code ?? 'runnable').toBe(c.code);
      const v = evaluate(prepare(inp), inp.items.find((i) => i.id === c.id)!);
      expect(v.code).toBe(c.code);
      if (c.code !== 'runnable') expect(REASONS[c.code as keyof typeof REASONS].channel).toBe(c.channel);
      const f = computeFrontier(inp);
      if (c.channel !== 'closed') expect((f as any)[c.channel].map((x: any) => x.id)).toContain(c.id);
    });
  }
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
