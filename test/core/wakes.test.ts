import { describe, expect, it } from 'vitest';
import { wakesOf } from '../../src/runtime/admission.js';
import type { HolonEvent } from '../../src/core/types.js';

const ev = (over: Partial<HolonEvent>): HolonEvent => ({
  id: 'e-1', agent: 'a', source: 'external', mode: 'wake_hint', resource: 'ci:1', work_item: null, payload: null,
  provenance: 'cli:notify', created_at: '', status: 'admitted', admitted_at: '', disposition: { triggered: [], nudged: true }, ...over,
});

describe('wakesOf', () => {
  it('one wake per triggered wait; operator events wake as operator_message', () => {
    const triggered = { triggered: [{ work_item: 'w-a', wait: 'wt-1' }, { work_item: 'w-b', wait: 'wt-2' }], nudged: false };
    expect(wakesOf(ev({ disposition: triggered }))).toEqual([
      { agent: 'a', work_item: 'w-a', reason: 'wait_triggered', wait: 'wt-1', event: 'e-1' },
      { agent: 'a', work_item: 'w-b', reason: 'wait_triggered', wait: 'wt-2', event: 'e-1' },
    ]);
    expect(wakesOf(ev({ source: 'operator', disposition: triggered }))[0].reason).toBe('operator_message');
  });
  it('a nudge wakes only for an operator message, never for an outside event', () => {
    expect(wakesOf(ev({}))).toEqual([]);
    expect(wakesOf(ev({ source: 'operator', work_item: 'w-a' }))).toEqual([{ agent: 'a', work_item: 'w-a', reason: 'operator_message', event: 'e-1' }]);
    expect(wakesOf(ev({ disposition: null }))).toEqual([]);
  });
});
