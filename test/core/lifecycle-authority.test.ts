import { describe, expect, it } from 'vitest';
import { lifecycleAuthority, requireLifecycleAuthority, type AuthorityCase } from '../../src/core/lifecycle-authority.js';

const NOW = Date.parse('2026-11-30T10:00:00Z');
const lease = (holder: string, expires_at: string | null) => ({ holder, claimed_at: '2026-11-30T09:00:00Z', expires_at, version: 1, epoch: 1 });
const base = (over: Partial<AuthorityCase>): AuthorityCase => ({ actor: 'agent:rev', item: { id: 'w-1', agent: 'rev', claim: null }, delegated: [], nowMs: NOW, verb: 'complete', ...over });

describe('lifecycle authority', () => {
  const rows: Array<[string, Partial<AuthorityCase>, boolean, string[]?]> = [
    ['the operator changes any item', { actor: 'operator', item: { id: 'w-1', agent: 'bob', claim: null } }, true],
    ['a person by another name is still a person', { actor: 'alice', item: { id: 'w-1', agent: 'bob', claim: lease('agent:bob', null) } }, true],
    ['an agent changes its own item', {}, true],
    ['an agent may not change another agent\'s item', { item: { id: 'w-1', agent: 'bob', claim: null } }, false, ['agent:bob', 'a person (operator)']],
    ['unless AGENTS.md delegates that agent', { item: { id: 'w-1', agent: 'bob', claim: null }, delegated: ['bob'] }, true],
    ['or every agent', { item: { id: 'w-1', agent: 'bob', claim: null }, delegated: ['*'] }, true],
    ['a delegation for someone else does not count', { item: { id: 'w-1', agent: 'bob', claim: null }, delegated: ['carol'] }, false],
    ['another holder\'s live lease stops even the owner', { item: { id: 'w-1', agent: 'rev', claim: lease('agent:bob', '2026-11-30T11:00:00Z') } }, false, ['agent:bob', 'a person (operator)']],
    ['and a delegated agent', { item: { id: 'w-1', agent: 'carol', claim: lease('agent:bob', null) }, delegated: ['*'] }, false],
    ['an expired lease holds nothing', { item: { id: 'w-1', agent: 'rev', claim: lease('agent:bob', '2026-11-30T09:30:00Z') } }, true],
    ['the holder itself may write', { actor: 'agent:bob', item: { id: 'w-1', agent: 'rev', claim: lease('agent:bob', null) }, delegated: ['rev'] }, true],
  ];
  for (const [name, over, allowed, who] of rows) {
    it(name, () => {
      const v = lifecycleAuthority(base(over));
      expect(v.allowed).toBe(allowed);
      if (who && !v.allowed) expect(v.who).toEqual(who);
    });
  }

  it('a refusal is exit 3 and names who may do it', () => {
    try {
      requireLifecycleAuthority(base({ item: { id: 'w-1', agent: 'bob', claim: null } }));
      throw new Error('not refused');
    } catch (err: any) {
      expect(err.exitCode).toBe(3);
      expect(err.message).toBe('agent:rev may not complete w-1: it is agent "bob"\'s item and agents/rev/AGENTS.md delegates no authority over "bob"');
      expect(err.hint).toContain('who may: agent:bob or a person (operator)');
    }
  });
});
