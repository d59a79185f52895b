import { describe, expect, it } from 'vitest';
import { applyClaim, applyRelease, applyRenew, applyTransfer, claimLive } from '../../src/core/claims.js';
import { covers, delegated, parseScope, type Scope } from '../../src/core/decision-scope.js';
import { graphFieldProblems, parseResumeCondition } from '../../src/core/graph-fields.js';
import { globsOverlap } from '../../src/core/write-scope.js';
import { HolonError } from '../../src/core/errors.js';
import { mk, NOW } from './frontier-fixtures.js';

const sc = (s: string) => parseScope(s) as Scope;

describe('decision scopes', () => {
  it.each([
    ['api_change:action:export', { kind: 'api_change', granularity: 'action', key: 'export' }],
    ['release:global:*', { kind: 'release', granularity: 'global', key: '*' }],
    ['ext:lane:github:acme/app#1', { kind: 'ext', granularity: 'lane', key: 'github:acme/app#1' }],
    ['api:action', { error: 'decision scope "api:action" needs three parts' }],
    ['api:team:x', { error: 'decision scope "api:team:x" has an unknown granularity "team"' }],
    [':action:x', { error: 'decision scope ":action:x" has a bad kind ""' }],
    ['api:action:', { error: 'decision scope "api:action:" has an empty or spaced key' }],
  ])('parses %s', (text, want) => expect(parseScope(text)).toEqual(want));

  it.each([
    ['api:action:x', 'api:action:x', true],
    ['api:lane:x', 'api:action:x', true],
    ['api:global:x', 'api:project:x', true],
    ['api:action:x', 'api:lane:x', false],
    ['api:project:*', 'api:goal:anything', true],
    ['api:action:*', 'api:lane:x', false],
    ['api:global:y', 'api:action:x', false],
    ['release:global:*', 'api:action:x', false],
    ['*:global:*', 'api:action:x', true],
  ])('%s covers %s: %s', (wide, narrow, want) => expect(covers(sc(wide), sc(narrow))).toBe(want));

  it('delegation uses the same coverage', () => {
    expect(delegated(['api:lane:export'], sc('api:action:export'))).toBe(true);
    expect(delegated(['api:action:export'], sc('api:lane:export'))).toBe(false);
    expect(delegated(['garbage'], sc('api:action:export'))).toBe(false);
  });
});

describe('write scope overlap', () => {
  it.each([
    ['src/api/**', 'src/**', true],
    ['src/api/**', 'src/ui/**', false],
    ['src/api', 'src/api/x.ts', true],
    ['src/api/x.ts', 'src/api/y.ts', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/a.md', false],
    ['src/*.ts', 'src/sub/a.ts', false],
    ['docs/*.md', 'docs/frontier.md', true],
    ['**', 'anything/at/all', true],
    ['a/b', 'ab', false],
    ['test/**', 'src/**', false],
    ['src/a*', 'src/b*', false],
    ['src/a*', 'src/ab*', true],
    ['src/*.ts', 'src/*.md', false],
    ['./src/x', 'src/x', true],
    // [!...] negates a class (as [^...] does): b.ts is not an "a" file, so they meet.
    ['src/[!a]*.ts', 'src/b.ts', true],
    ['src/[!a]*.ts', 'src/a.ts', false],
    ['src/[^a]*.ts', 'src/b.ts', true],
  ])('%s vs %s: %s', (a, b, want) => {
    expect(globsOverlap(a, b)).toBe(want);
    expect(globsOverlap(b, a)).toBe(want);
  });
});

describe('claims and leases', () => {
  const item = mk({ id: 'w-a' });
  const req = { holder: 'agent:a', nowMs: NOW, ttl: '45m', ttlMs: 45 * 60_000 };

  it('claims, refuses another holder, and lets an expired lease go', () => {
    const c = applyClaim(item, req);
    expect(c.outcome).toBe('claimed');
    expect(c.item.claim).toMatchObject({ holder: 'agent:a', version: 1, epoch: 1, expires_at: '2026-11-30T06:45:00Z', ttl: '45m' });
    expect(() => applyClaim(c.item, { ...req, holder: 'agent:b' })).toThrow(/claimed by agent:a/);
    const later = applyClaim(c.item, { ...req, holder: 'agent:b', nowMs: NOW + 45 * 60_000 });
    expect(later.item.claim).toMatchObject({ holder: 'agent:b', version: 2, epoch: 2 });
    expect(claimLive(c.item.claim, NOW + 45 * 60_000 - 1)).toBe(true);
    expect(claimLive(c.item.claim, NOW + 45 * 60_000)).toBe(false);
  });

  it('compare-and-swap on claim.version, and an idempotency key makes a retry a no-op', () => {
    expect(() => applyClaim(item, { ...req, expectedVersion: 3 })).toThrow(/not the expected 3/);
    const c = applyClaim(item, { ...req, expectedVersion: 0, key: 'k1' });
    const retry = applyClaim(c.item, { ...req, expectedVersion: 0, key: 'k1', nowMs: NOW + 1000 });
    expect(retry.outcome).toBe('unchanged');
    expect(retry.item).toBe(c.item);
    expect(() => applyClaim(c.item, { ...req, expectedVersion: 0, key: 'k2' })).toThrow(HolonError);
  });

  it('renew, release and transfer need the holder', () => {
    const c = applyClaim(item, req).item;
    expect(applyRenew(c, 'agent:a', NOW + 60_000, null, null).claim).toMatchObject({ expires_at: '2026-11-30T06:46:00Z', version: 2 });
    expect(() => applyRenew(c, 'agent:b', NOW, '1h', 3_600_000)).toThrow(/claimed by agent:a/);
    expect(() => applyRenew(c, 'agent:a', NOW + 46 * 60_000, '1h', 3_600_000)).toThrow(/expired/);
    const r = applyRelease(c, 'agent:a', NOW + 1000, false);
    expect(claimLive(r.claim, NOW + 1000)).toBe(false);
    expect(r.claim).toMatchObject({ holder: 'agent:a', version: 2 });
    expect(applyClaim(r, { ...req, holder: 'agent:b', nowMs: NOW + 2000 }).item.claim).toMatchObject({ version: 3, epoch: 2 });
    expect(() => applyRelease(c, 'agent:b', NOW, false)).toThrow(/not by agent:b/);
    expect(applyRelease(c, 'agent:b', NOW, true).claim?.expires_at).toBe('2026-11-30T06:00:00Z');
    const t = applyTransfer(c, 'agent:a', 'b', NOW, false);
    expect(t.claim).toMatchObject({ holder: 'agent:b', epoch: 2, version: 2, expires_at: c.claim!.expires_at });
  });
});

describe('graph field validation', () => {
  it.each([
    ['at:2026-12-01T09:00:00Z', 'at'],
    ['done:w-4f2a9c1k', 'done'],
    ['event:github:acme/app#101', 'event'],
    ['capability:gpu', 'capability'],
    ['at:tomorrow', null],
    ['when:ready', null],
    ['done:', null],
  ])('resume_when %s', (text, kind) => {
    const p = parseResumeCondition(text);
    if (kind) expect(p).toMatchObject({ kind });
    else expect(p).toHaveProperty('error');
  });

  it.each([
    [{}, []],
    [{ requires: ['gpu', 'bad name'] }, ['requires']],
    [{ needs_decision: ['api:action:x', 'api'] }, ['needs_decision']],
    [{ class: 'user_gate' as const }, ['decision_scope']],
    [{ class: 'user_gate' as const, decision_scope: { scope: 'api:team:x' } }, ['decision_scope']],
    [{ class: 'user_action' as const, decision_scope: { scope: 'api:action:x' } }, ['decision_scope']],
    [{ write_scope: ['/etc/passwd', '../x', 'src/**'] }, ['write_scope', 'write_scope']],
    [{ resume_when: ['soon'] }, ['resume_when']],
    [{ depends_on: ['w-a'] }, ['depends_on']],
    [{ exclude: ['agent:ok', 'no way'] }, ['exclude']],
    [{ claim: { holder: 'agent:a', claimed_at: '', expires_at: 'later', version: 1, epoch: 1 } }, ['claim']],
  ])('%j -> %j', (over, fields) => {
    expect(graphFieldProblems(mk({ id: 'w-a', ...over })).map((p) => p.field)).toEqual(fields);
  });

  it('says why a user_action cannot carry a decision', () => {
    const [p] = graphFieldProblems(mk({ id: 'w-a', class: 'user_action', decision_scope: { scope: 'api:action:x' } }));
    expect(p.message).toMatch(/a user_action never does/);
  });
});
