import { describe, expect, it } from 'vitest';
import { HolonError } from '../../src/core/errors.js';
import { addWait, block, cancelWait, checkResumeCondition, complete, defer, expireWait, reopen, settleLiveWaits, supersede, timerCancelled, triggerWait } from '../../src/core/transitions.js';
import type { Wait, WorkItem } from '../../src/core/types.js';
import { newBody, type WorkDoc } from '../../src/core/workitem.js';
import { readSection } from '../../src/core/body.js';

const NOW = '2026-11-30T12:00:00Z';
const item = (over: Partial<WorkItem> = {}): WorkItem => ({
  id: 'w-a', title: 't', agent: 'a', status: 'open', class: 'advancement_task', action: null, priority: null,
  created_at: NOW, updated_at: NOW, revision: 1, depends_on: [], resume_when: [], requires: [], repo: null, branch: null,
  write_scope: [], needs_decision: [], decision_scope: null, exclude: [], claim: null, waits: [], blocker: null,
  successors: [], superseded_by: null, no_followup: null, delivery: null, extra: {}, ...over,
});
const doc = (over: Partial<WorkItem> = {}): WorkDoc => ({ item: item(over), body: newBody('deliver it'), entries: [] });
const wait = (id: string, over: Partial<Wait> = {}): Wait => ({ id, kind: 'external', resource: 'ci:1', reason: 'r', status: 'active', created_at: NOW, recheck_at: null, settled_at: null, settled_reason: null, ...over });
const ev = { id: 'e-1', source: 'external' as const, mode: 'wake_hint' as const, provenance: 'cli:notify' };
const base = { result: 'fixed', evidence: ['CI green on abc123'], outstanding: [], successors: [], noFollowup: 'nothing left', actor: 'operator', nowIso: NOW };

describe('waits', () => {
  it('trigger, expire and cancel only an active wait', () => {
    const d = doc({ waits: [wait('wt-1'), wait('wt-2')] });
    const t = triggerWait(d, 'wt-1', ev, NOW);
    expect(t.item.waits[0]).toMatchObject({ status: 'triggered', settled_by: { event: 'e-1', source: 'external' } });
    expect(expireWait(t, 'wt-1', NOW).item.waits[0].status).toBe('triggered');
    expect(expireWait(t, 'wt-2', NOW).item.waits[1]).toMatchObject({ status: 'expired', settled_reason: 'recheck_deadline' });
    expect(cancelWait(t, 'wt-2', 'cancelled', NOW).item.waits[1].status).toBe('cancelled');
    expect(() => cancelWait(t, 'wt-9', 'cancelled', NOW)).toThrow(HolonError);
  });
  it('a new wait resolves the triggered ones; a done item refuses waits', () => {
    const d = triggerWait(doc({ waits: [wait('wt-1')] }), 'wt-1', ev, NOW);
    const n = addWait(d, wait('wt-2'), NOW);
    expect(n.item.waits.map((w) => w.status)).toEqual(['resolved', 'active']);
    expect(() => addWait(doc({ status: 'done' }), wait('wt-3'), NOW)).toThrow(/done/);
  });
  it('settling live waits cancels active and resolves triggered', () => {
    const d = triggerWait(doc({ waits: [wait('wt-1'), wait('wt-2'), wait('wt-3', { status: 'expired' })] }), 'wt-1', ev, NOW);
    expect(settleLiveWaits(d, 'superseded', NOW).item.waits.map((w) => `${w.status}:${w.settled_reason}`)).toEqual(['resolved:event', 'cancelled:superseded', 'expired:null']);
  });
  it('a cancelled timer settles its waits and blocks the item; a wake does not clear a blocker', () => {
    const d = doc({ waits: [wait('wt-1', { kind: 'timer', resource: 't-1' }), wait('wt-2')] });
    const r = timerCancelled(d, 't-1', NOW);
    expect(r.settled).toEqual(['wt-1']);
    expect(r.doc.item).toMatchObject({ status: 'blocked', blocker: { reason: expect.stringContaining('t-1') } });
    expect(r.doc.item.waits[0]).toMatchObject({ status: 'cancelled', settled_reason: 'timer_cancelled' });
    expect(timerCancelled(r.doc, 't-1', NOW).settled).toEqual([]);
    expect(triggerWait(r.doc, 'wt-2', ev, NOW).item.blocker).not.toBeNull();
  });
});

describe('completion needs delivery', () => {
  it('refuses without evidence, with outstanding work but no successor, and without a follow-up answer', () => {
    expect(() => complete(doc(), { ...base, evidence: [] }, [])).toThrow(/no evidence/);
    expect(() => complete(doc(), { ...base, outstanding: ['port the client'] }, [])).toThrow(/no successor/);
    expect(() => complete(doc(), { ...base, noFollowup: null }, [])).toThrow(/--successor ID/);
    expect(() => complete(doc(), { ...base, successors: ['w-b'] }, [])).toThrow(/both/);
    expect(() => complete(doc({ status: 'done' }), base, [])).toThrow(/done/);
  });
  it('completes with delivery, the Delivery section, and the waits cancelled', () => {
    const d = complete(doc({ waits: [wait('wt-1')] }), { ...base, evidence: [] }, ['tests pass on abc123']);
    expect(d.item).toMatchObject({ status: 'done', no_followup: 'nothing left', delivery: { result: 'fixed', evidence: ['tests pass on abc123'], completed_by: 'operator', completed_at: NOW } });
    expect(d.item.waits[0]).toMatchObject({ status: 'cancelled', settled_reason: 'work_item_completed' });
    expect(readSection(d.body, 'Delivery')).toContain('Result: fixed');
    const s = complete(doc(), { ...base, noFollowup: null, outstanding: ['client release'], successors: ['w-b'] }, []);
    expect(s.item).toMatchObject({ successors: ['w-b'], no_followup: null, delivery: { outstanding: ['client release'] } });
  });
});

describe('other exits', () => {
  it('supersede keeps lineage and cancels waits', () => {
    const d = supersede(doc({ waits: [wait('wt-1')] }), 'w-new', 'split in two', NOW);
    expect(d.item).toMatchObject({ status: 'done', superseded_by: 'w-new' });
    expect(d.item.waits[0].settled_reason).toBe('superseded');
    expect(readSection(d.body, 'History')).toContain('superseded by w-new');
    expect(() => supersede(doc(), 'w-a', 'x', NOW)).toThrow(/itself/);
  });
  it('defer, block, reopen', () => {
    const d = defer(doc(), ['done:w-b'], 'after the release', NOW);
    expect(d.item).toMatchObject({ status: 'deferred', resume_when: ['done:w-b'] });
    const b = block(d, 'no access', 'ask ops', NOW);
    expect(b.item).toMatchObject({ status: 'blocked', blocker: { reason: 'no access', recovery: 'ask ops', since: NOW } });
    const r = reopen(b, NOW);
    expect(r.item).toMatchObject({ status: 'open', blocker: null, resume_when: [] });
    expect(readSection(r.body, 'History')).toContain('reopened');
    expect(() => reopen(doc({ status: 'done' }), NOW)).toThrow(/done/);
  });
  it('resume conditions have four forms', () => {
    expect(checkResumeCondition('at:2026-12-01T10:00:00Z')).toBe('at:2026-12-01T10:00:00Z');
    expect(checkResumeCondition('event:ci:run/1')).toBe('event:ci:run/1');
    expect(checkResumeCondition('capability:gpu')).toBe('capability:gpu');
    expect(() => checkResumeCondition('later')).toThrow(/resume condition/);
    expect(() => checkResumeCondition('done:../x')).toThrow(HolonError);
  });
});
