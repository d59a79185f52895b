import { describe, expect, it } from 'vitest';
import { KeeperChanges } from '../../src/runtime/keeper-changes.js';

// The index keeper's bookkeeping of changed names, without the watching (runtime/index-keeper.ts
// watches and sweeps; test/cli/index-keeper.test.ts runs it). What a real keeper cannot show on
// demand: a sweep that finds a file moved after an event already told the host needs a write through
// a hard link between two sweeps, which only time could order.
describe('the index keeper: changed names and what the host was told', () => {
  it('tells the host once after a change an event reported', () => {
    const c = new KeeperChanges();
    expect(c.takeNews()).toBe(false);
    c.note('main', 'a.md', 1);
    c.note('main', 'b.md', 2);
    expect(c.takeNews()).toBe(true);
    expect(c.takeNews()).toBe(false);
    expect(c.since({ main: 0 }, 100)).toEqual({ changed: { main: ['a.md', 'b.md'] } });
  });

  it('answers each agent from its own mark and leaves out an agent with no mark or nothing after it', () => {
    const c = new KeeperChanges();
    c.note('main', 'a.md', 1);
    c.note('main', 'b.md', 5);
    c.note('other', 'c.md', 3);
    c.note('third', 'd.md', 4);
    expect(c.since({ main: 2, other: 3 }, 100)).toEqual({ changed: { main: ['b.md'] } });
    expect(c.since({ main: 0, other: 0, third: Number.NaN }, 100)).toEqual({ changed: { main: ['a.md', 'b.md'], other: ['c.md'] } });
    // A name changed again answers at its last generation.
    c.note('main', 'a.md', 6);
    expect(c.since({ main: 5 }, 100)).toEqual({ changed: { main: ['a.md'] } });
    expect(c.lastAt('main', 'a.md')).toBe(6);
    expect(c.lastAt('main', 'x.md')).toBe(-1);
  });

  it('an agent named like an object key is an agent like any other', () => {
    const c = new KeeperChanges();
    c.note('__proto__', 'a.md', 1);
    c.note('constructor', 'b.md', 2);
    const out = c.since(JSON.parse('{"__proto__": 0, "constructor": 0}') as Record<string, number>, 100)!;
    expect(Object.keys(out.changed).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.hasOwn(out.changed, '__proto__') && out.changed['__proto__']).toEqual(['a.md']);
    expect(out.changed['constructor']).toEqual(['b.md']);
    expect(c.since({}, 100)).toEqual({ changed: {} });
  });

  it('gives no names past the limit: the asker lists its files', () => {
    const c = new KeeperChanges();
    for (let i = 0; i < 5; i++) c.note(i % 2 ? 'main' : 'other', `${i}.md`, i + 1);
    expect(c.since({ main: 0, other: 0 }, 5)).not.toBeNull();
    expect(c.since({ main: 0, other: 0 }, 4)).toBeNull();
  });

  it('names a quiet change untold until the host is told again', () => {
    const c = new KeeperChanges();
    c.note('main', 'a.md', 1);
    expect(c.takeNews()).toBe(true);
    // A sweep finds a.md moved since: the event told the host already, so this is no news, and no
    // refresh is known to follow what the file holds now.
    c.note('main', 'a.md', 2, false);
    c.note('main', 'b.md', 3);
    expect(c.since({ main: 0 }, 100)).toEqual({ changed: { main: ['a.md', 'b.md'] }, untold: { main: ['a.md'] } });
    // Answered from past its change, it is not in the answer, nor untold.
    expect(c.since({ main: 2 }, 100)).toEqual({ changed: { main: ['b.md'] } });
    // b.md's event brings a tell: the refresh after it reads every file, a.md included.
    expect(c.takeNews()).toBe(true);
    expect(c.since({ main: 0 }, 100)).toEqual({ changed: { main: ['a.md', 'b.md'] } });
  });

  it('a quiet change is quiet alone: no tell, until a change that is news', () => {
    const c = new KeeperChanges();
    c.note('main', 'a.md', 1, false);
    expect(c.takeNews()).toBe(false);
    expect(c.since({ main: 0 }, 100)?.untold).toEqual({ main: ['a.md'] });
    // An event on the same file after the sweep: the tell it brings covers what the file holds now.
    c.note('main', 'a.md', 2);
    expect(c.since({ main: 0 }, 100)).toEqual({ changed: { main: ['a.md'] } });
    expect(c.takeNews()).toBe(true);
  });

  it('a sweep: a file moved with no event since the sweep before is news, one with an event since is quiet', () => {
    const c = new KeeperChanges();
    let gen = 0;
    const next = () => ++gen;
    c.note('main', 'before.md', next()); // 1: an event before the last sweep started
    expect(c.takeNews()).toBe(true);
    const sweptAt = gen; // the last sweep started here
    c.note('main', 'told.md', next()); // 2: an event since
    expect(c.takeNews()).toBe(true);
    // This sweep finds all three moved: only told.md had an event since the last sweep started.
    expect(c.swept('main', ['before.md', 'told.md', 'silent.md'], sweptAt, next)).toEqual(['before.md', 'silent.md']);
    expect(c.lastAt('main', 'silent.md')).toBe(5);
    expect(c.since({ main: 2 }, 100)).toEqual({ changed: { main: ['before.md', 'told.md', 'silent.md'] }, untold: { main: ['told.md'] } });
    // The news among them brings a tell, which covers the quiet one too.
    expect(c.takeNews()).toBe(true);
    expect(c.since({ main: 2 }, 100)?.untold).toBeUndefined();
    // A sweep that finds only files events told of: no news, so no tell, and they stay untold.
    const again = gen;
    c.note('main', 'told.md', next());
    c.takeNews();
    expect(c.swept('main', ['told.md'], again, next)).toEqual([]);
    expect(c.takeNews()).toBe(false);
    expect(c.since({ main: again }, 100)?.untold).toEqual({ main: ['told.md'] });
  });

  it("news of one agent's file leaves another's quiet names untold until the tell", () => {
    const c = new KeeperChanges();
    c.note('other', 'a.md', 1, false);
    c.note('main', 'a.md', 2);
    expect(c.since({ main: 0, other: 0 }, 100)).toEqual({ changed: { main: ['a.md'], other: ['a.md'] }, untold: { other: ['a.md'] } });
    // The refresh a tell brings computes every agent's answer again.
    expect(c.takeNews()).toBe(true);
    expect(c.since({ main: 0, other: 0 }, 100)?.untold).toBeUndefined();
  });

  it('a quiet name noted again after a new epoch is still untold until the tell the epoch brings', () => {
    const c = new KeeperChanges();
    c.note('main', 'a.md', 1, false);
    c.renew();
    c.note('main', 'a.md', 3, false);
    expect(c.since({ main: 2 }, 100)).toEqual({ changed: { main: ['a.md'] }, untold: { main: ['a.md'] } });
    expect(c.takeNews()).toBe(true);
    expect(c.since({ main: 2 }, 100)).toEqual({ changed: { main: ['a.md'] } });
  });

  it('a new epoch voids every name and tells the host; a dropped watch forgets its agent', () => {
    const c = new KeeperChanges();
    c.note('main', 'a.md', 1);
    c.note('other', 'b.md', 2, false);
    c.forget('other');
    expect(c.since({ main: 0, other: 0 }, 100)).toEqual({ changed: { main: ['a.md'] } });
    expect(c.takeNews()).toBe(true);
    c.renew();
    expect(c.since({ main: 0 }, 100)).toEqual({ changed: {} });
    expect(c.lastAt('main', 'a.md')).toBe(-1);
    expect(c.takeNews()).toBe(true);
  });
});
