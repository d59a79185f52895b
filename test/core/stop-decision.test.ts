import { describe, expect, it } from 'vitest';
import { stopDecision, type StopInput } from '../../src/core/stop-decision.js';

const open = { id: 'w-4f2a9c1k', title: 'Fix the parser', status: 'open' as const, blocker: null, delivery: null, waits: [] as { status: any }[] };
const base: StopInput = { stopHookActive: false, unavailable: null, agent: 'main', focusId: 'w-4f2a9c1k', item: open };
const blocker = { reason: 'no access', recovery: 'ask ops for a token', since: '2026-11-30T05:00:00Z' } as any;
const delivery = { result: 'r', evidence: ['e'], outstanding: [], completed_at: '2026-11-30T05:00:00Z', completed_by: 'operator' };

describe('the Stop decision', () => {
  const cases: Array<[string, Partial<StopInput>, boolean, RegExp]> = [
    ['an open focus with nothing to settle it blocks', {}, true, /w-4f2a9c1k/],
    ['stop_hook_active never blocks (no loop)', { stopHookActive: true }, false, /stop_hook_active/],
    ['outside a home lets through', { unavailable: 'no holon home here', focusId: null, item: null }, false, /no holon home/],
    ['no focus lets through', { focusId: null, item: null }, false, /no focus/],
    ['an unreadable focus lets through', { item: null }, false, /could not be read/],
    ['an active wait settles it', { item: { ...open, waits: [{ status: 'active' }] } }, false, /waits/],
    ['a triggered wait alone does not (the wake is unhandled)', { item: { ...open, waits: [{ status: 'triggered' }, { status: 'cancelled' }] } }, true, /no active wait/],
    ['a blocker settles it', { item: { ...open, blocker } }, false, /blocker/],
    ['a delivery settles it', { item: { ...open, delivery } }, false, /delivery/],
    ['done lets through', { item: { ...open, status: 'done' } }, false, /is done/],
    ['deferred lets through', { item: { ...open, status: 'deferred' } }, false, /is deferred/],
    ['blocked status lets through', { item: { ...open, status: 'blocked' } }, false, /is blocked/],
  ];
  for (const [name, patch, block, text] of cases) {
    it(name, () => {
      const v = stopDecision({ ...base, ...patch });
      expect(v.block).toBe(block);
      expect(v.block ? v.reason : v.why).toMatch(text);
    });
  }

  it('names the item literally and the three honest exits with their commands', () => {
    const v = stopDecision(base);
    if (!v.block) throw new Error('expected a block');
    expect(v.reason).toContain('holon wait w-4f2a9c1k --for ');
    expect(v.reason).toContain('holon block w-4f2a9c1k --reason ');
    expect(v.reason).toContain('--recovery ');
    expect(v.reason).toContain('holon complete w-4f2a9c1k --result ');
    expect(v.reason).toContain('--evidence ');
    expect(v.reason).not.toMatch(/\$[A-Z{]/);
  });
});
