import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

describe('--expected-version on every claim step', () => {
  it('renew, transfer and release refuse (5) a stale version and change nothing; the current one goes through', async () => {
    const p = await project();
    expect((await p.h(['agent', 'add', 'bob'])).code).toBe(0);
    const a = await p.create('shared');
    const c1 = await p.json(['claim', a, '--ttl', '1h']);
    const v = c1.claim.version;
    for (const args of [['renew', a, '--ttl', '2h'], ['transfer', a, '--to', 'bob'], ['release', a]]) {
      const before = readFileSync(p.workFile(a), 'utf8');
      const r = await p.h([...args, '--expected-version', String(v + 7)]);
      expect(r.code, args[0]).toBe(5);
      expect(r.stderr).toContain(`claim version is ${v}, not the expected ${v + 7}`);
      expect(readFileSync(p.workFile(a), 'utf8')).toBe(before);
    }
    const renewed = await p.json(['renew', a, '--ttl', '2h', '--expected-version', String(v)]);
    expect(renewed.claim.version).toBe(v + 1);
    const moved = await p.json(['transfer', a, '--to', 'bob', '--expected-version', String(v + 1)]);
    expect(moved.claim).toMatchObject({ holder: 'agent:bob', version: v + 2 });
    expect((await p.h(['release', a, '--expected-version', String(v + 2)], { HOLON_ACTOR: 'agent:bob' })).code).toBe(0);
    expect((await p.h(['release', a, '--expected-version', 'x'])).code).toBe(3);
  });
});
