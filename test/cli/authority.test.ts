import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

describe('lifecycle authority on the write path', () => {
  it('an agent may not complete, supersede or write progress into another agent\'s item (3, naming who may); its own, a delegated one and the operator may', async () => {
    const p = await project('rev');
    expect((await p.h(['agent', 'add', 'bob'])).code).toBe(0);
    const bobs = await p.create('bob\'s work', [], { HOLON_AGENT: 'bob' });
    const other = await p.create('bob\'s other work', [], { HOLON_AGENT: 'bob' });
    const asRev = { HOLON_ACTOR: 'agent:rev', HOLON_AGENT: 'rev' };
    const before = readFileSync(p.workFile(bobs, 'bob'), 'utf8');
    for (const args of [
      ['complete', bobs, '--result', 'r', '--evidence', 'e', '--no-followup', 'n'],
      ['supersede', bobs, '--by', other, '--reason', 'r'],
      ['progress', bobs, 'meddling'],
      ['block', bobs, '--reason', 'r', '--recovery', 'x'],
    ]) {
      const r = await p.h(args, asRev);
      expect(r.code, args[0]).toBe(3);
      expect(r.stderr).toContain(`agent:rev may not`);
      expect(r.stderr).toContain('who may: agent:bob or a person (operator)');
    }
    expect(readFileSync(p.workFile(bobs, 'bob'), 'utf8')).toBe(before);
    // Bob changes his own; a person changes anyone's.
    expect((await p.h(['progress', bobs, 'mine'], { HOLON_ACTOR: 'agent:bob', HOLON_AGENT: 'bob' })).code).toBe(0);
    expect((await p.h(['progress', other, 'a person may'])).code).toBe(0);
    // Delegated in rev's AGENTS.md: rev may.
    const md = join(p.home, 'agents/rev/AGENTS.md');
    writeFileSync(md, readFileSync(md, 'utf8').replace('authority:\n  decide: []', 'authority:\n  decide: []\n  lifecycle: ["bob"]'));
    expect((await p.h(['progress', bobs, 'delegated'], asRev)).code).toBe(0);
    // Another holder's live lease stops even a delegated agent.
    expect((await p.h(['claim', other, '--ttl', '1h'], { HOLON_ACTOR: 'agent:bob', HOLON_AGENT: 'bob' })).code).toBe(0);
    const leased = await p.h(['progress', other, 'while bob holds it'], asRev);
    expect(leased.code).toBe(3);
    expect(leased.stderr).toContain('agent:bob holds a live claim on it');
  });

  it('supersession is recorded on the new item too, and resume shows the lineage both ways; a refused one writes neither', async () => {
    const p = await project();
    const old = await p.create('Migrate with a shim');
    const next = await p.create('Migrate without the shim');
    const other = await p.create('unrelated');
    const r = await p.json(['supersede', old, '--by', next, '--reason', 'the shim breaks v1 clients']);
    expect(r.superseded_by).toBe(next);
    expect((await p.json(['show', next])).supersedes).toEqual([old]);
    const text = (await p.h(['resume', next])).stdout;
    expect(text).toContain(`This item replaces ${old} (superseded)`);
    expect((await p.json(['resume', next])).lineage).toEqual({ supersedes: [old], superseded_by: null });
    expect((await p.json(['resume', old])).lineage).toEqual({ supersedes: [], superseded_by: next });
    // Superseding a done item again is refused and leaves the would-be replacement untouched.
    const before = readFileSync(p.workFile(other), 'utf8');
    expect((await p.h(['supersede', old, '--by', other, '--reason', 'again'])).code).toBe(3);
    expect(readFileSync(p.workFile(other), 'utf8')).toBe(before);
  });
});
