import { describe, expect, it } from 'vitest';
import { HolonError } from '../../src/core/errors.js';
import { checkNotify, MAX_PAYLOAD_BYTES } from '../../src/core/event-input.js';
import type { Wait } from '../../src/core/types.js';
import { checkResource, eventKey, joinWaits, matchWaits, parseWaitFor, waitKey } from '../../src/core/wait-matching.js';

const wait = (id: string, kind: Wait['kind'], resource: string, over: Partial<Wait> = {}): Wait => ({
  id, kind, resource, reason: 'r', status: 'active', created_at: '2026-11-30T10:00:00Z', recheck_at: null, settled_at: null, settled_reason: null, ...over,
});

describe('parseWaitFor', () => {
  it('parses the four kinds', () => {
    expect(parseWaitFor('external:ci:run/7731')).toEqual({ kind: 'external', resource: 'ci:run/7731' });
    expect(parseWaitFor('task:k-4f2a9c1k')).toEqual({ kind: 'task', resource: 'k-4f2a9c1k' });
    expect(parseWaitFor('timer')).toEqual({ kind: 'timer', resource: '' });
    expect(parseWaitFor('operator')).toEqual({ kind: 'operator', resource: '' });
  });
  it('refuses unknown kinds, bad handles and malformed resources', () => {
    for (const bad of ['ci:run/1', 'task:nope', 'timer:x y', 'external:', 'external:a b', 'operator:bob', 'external:a\u0007']) {
      expect(() => parseWaitFor(bad), bad).toThrow(HolonError);
    }
  });
  it('a task wait without a handle says how to get one, not how to name an outside object', () => {
    for (const bad of ['task', 'task:']) {
      expect(() => parseWaitFor(bad), bad).toThrow(/needs a task handle/);
      try {
        parseWaitFor(bad);
      } catch (err) {
        expect((err as HolonError).hint).toContain('holon task run');
      }
    }
    expect(() => parseWaitFor('external')).toThrow(/resource is empty/);
  });
});

describe('matching', () => {
  const items = [
    { id: 'w-a', status: 'open', waits: [wait('wt-1', 'external', 'ci:run/7731'), wait('wt-2', 'operator', '')] },
    { id: 'w-b', status: 'open', waits: [wait('wt-3', 'external', 'ci:run/8000'), wait('wt-4', 'timer', 't-1')] },
    { id: 'w-c', status: 'done', waits: [wait('wt-5', 'external', 'ci:run/7731')] },
  ];
  const ev = (resource: string, source: any = 'external', work_item: string | null = null, id = 'e-1') => ({ id, source, resource, work_item });

  it('triggers only the waits on exactly that resource, never a done item', () => {
    expect(matchWaits(items, ev('ci:run/7731'))).toEqual([{ work_item: 'w-a', wait: 'wt-1' }]);
    expect(matchWaits(items, ev('external:ci:run/7731'))).toEqual([{ work_item: 'w-a', wait: 'wt-1' }]);
    expect(matchWaits(items, ev('ci:run/773'))).toEqual([]);
  });
  it('an event naming an item never settles another item\'s wait', () => {
    expect(matchWaits(items, ev('ci:run/7731', 'external', 'w-b'))).toEqual([]);
  });
  it('a webhook cannot pose as a timer; operator waits need the operator', () => {
    expect(matchWaits(items, ev('timer:t-1', 'external'))).toEqual([]);
    expect(matchWaits(items, ev('timer:t-1', 'timer'))).toEqual([{ work_item: 'w-b', wait: 'wt-4' }]);
    expect(matchWaits(items, ev('operator', 'external'))).toEqual([]);
    expect(matchWaits(items, ev('operator', 'operator'))).toEqual([{ work_item: 'w-a', wait: 'wt-2' }]);
  });
  it('rerunning an admission finds the waits this event already triggered', () => {
    const done = [{ id: 'w-a', status: 'open', waits: [wait('wt-1', 'external', 'x', { status: 'triggered', settled_by: { event: 'e-9', source: 'external', mode: 'wake_hint' } })] }];
    expect(matchWaits(done, ev('x', 'external', null, 'e-9'))).toEqual([{ work_item: 'w-a', wait: 'wt-1' }]);
    expect(matchWaits(done, ev('x', 'external', null, 'e-10'))).toEqual([]);
  });
  it('keys', () => {
    expect(waitKey(wait('w', 'operator', ''))).toBe('operator');
    expect(eventKey('task:k-1')).toBe('task:k-1');
    expect(eventKey('github:acme/app#101')).toBe('external:github:acme/app#101');
  });
});

describe('event input', () => {
  it('refuses empty or spaced resources, unknown modes and sources, big payloads', () => {
    const ok = { resource: 'ci:run/1', mode: 'wake_hint', source: 'external', payload: null };
    expect(checkNotify(ok).mode).toBe('wake_hint');
    expect(() => checkResource('')).toThrow(/empty/);
    expect(() => checkNotify({ ...ok, resource: 'a b' })).toThrow(/spaces/);
    expect(() => checkNotify({ ...ok, mode: 'loud' })).toThrow(/unknown mode/);
    expect(() => checkNotify({ ...ok, source: 'operator' })).toThrow(/holon tell/);
    expect(() => checkNotify({ ...ok, source: 'nobody' })).toThrow(/not allowed/);
    expect(() => checkNotify({ ...ok, payload: 'x'.repeat(MAX_PAYLOAD_BYTES + 1) })).toThrow(/limit/);
    expect(checkNotify({ ...ok, payload: 'x'.repeat(MAX_PAYLOAD_BYTES) }).payload).toHaveLength(MAX_PAYLOAD_BYTES);
  });
});

describe('joinWaits', () => {
  const by = (event: string) => ({ event, source: 'external' as const, mode: 'wake_hint' as const, provenance: 'cli' });
  const items = [
    { id: 'w-a', status: 'open', waits: [wait('wt-1', 'external', 'ci:1', { status: 'triggered', settled_by: by('e-1') }), wait('wt-2', 'external', 'ci:2', { status: 'triggered', settled_by: by('e-2') }), wait('wt-3', 'external', 'ci:1', { status: 'resolved', settled_by: by('e-0') })] },
    { id: 'w-b', status: 'open', waits: [wait('wt-4', 'external', 'ci:1', { status: 'triggered', settled_by: by('e-3') })] },
    { id: 'w-c', status: 'done', waits: [wait('wt-5', 'external', 'ci:1', { status: 'triggered', settled_by: by('e-4') })] },
  ];
  const ev = (o: Partial<{ id: string; source: any; resource: string; work_item: string | null }> = {}) => ({ id: 'e-9', source: 'external' as const, resource: 'ci:1', work_item: null, ...o });

  it('joins triggered waits on the same resource that are still pending, of items not done', () => {
    expect(joinWaits(items, ev(), () => true)).toEqual([{ work_item: 'w-a', wait: 'wt-1' }, { work_item: 'w-b', wait: 'wt-4' }]);
    expect(joinWaits(items, ev(), (w) => w !== 'wt-4')).toEqual([{ work_item: 'w-a', wait: 'wt-1' }]);
    expect(joinWaits(items, ev({ work_item: 'w-b' }), () => true)).toEqual([{ work_item: 'w-b', wait: 'wt-4' }]);
  });

  it('never joins a wait this same event triggered, or one its source may not settle', () => {
    expect(joinWaits(items, ev({ id: 'e-1', work_item: 'w-a' }), () => true)).toEqual([]);
    expect(joinWaits(items, ev({ source: 'timer', resource: 'external:ci:1' }), () => true)).toEqual([]);
  });
});
