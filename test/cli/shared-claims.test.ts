import { describe, expect, it } from 'vitest';
import { clones } from '../helpers/clones.js';

describe('claims: shared, a claim counts once pushed', () => {
  it('six clones race to claim one item: exactly one holder after everyone syncs; the others exit 5 naming it and keep no claim', async () => {
    const c = await clones(6, { config: 'claims: shared\n' });
    const runs = await Promise.all(c.dirs.map((_, i) => c.h(i, ['claim', c.id, '--ttl', '2h', '--json'], { HOLON_ACTOR: `agent:c${i}` })));
    const winners = runs.map((r, i) => (r.code === 0 ? i : -1)).filter((i) => i >= 0);
    expect(winners, runs.map((r) => r.stderr).join('\n')).toHaveLength(1);
    const holder = `agent:c${winners[0]}`;
    expect(JSON.parse(runs[winners[0]].stdout)).toMatchObject({ outcome: 'claimed', claim: { holder } });
    for (const [i, r] of runs.entries()) {
      if (i === winners[0]) continue;
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain(`is claimed by ${holder}`);
    }
    for (let i = 0; i < c.dirs.length; i++) {
      expect((await c.h(i, ['sync'])).code).toBe(0);
      expect((await c.show(i)).claim).toMatchObject({ holder, epoch: 1, version: 1 });
      expect(c.git(i, 'status', '--porcelain', '--', '.holon')).toBe('');
    }
    const log = c.git(0, 'log', '--format=%s', 'origin/main');
    expect(log.split('\n').filter((s) => s.startsWith('holon: claim'))).toEqual([`holon: claim ${c.id}`]);
  });

  it('pick with no id on two clones at once: one takes the item, the other exits 5 naming the holder; release travels too', async () => {
    const c = await clones(2, { config: 'claims: shared\n' });
    const runs = await Promise.all([0, 1].map((i) => c.h(i, ['pick', '--json'], { HOLON_ACTOR: `agent:p${i}` })));
    const w = runs.findIndex((r) => r.code === 0);
    expect(w, runs.map((r) => r.stderr).join('\n')).toBeGreaterThanOrEqual(0);
    const loser = runs[1 - w];
    // A loser that raced (its push was rejected) exits 5 naming the holder; one that fetched after the
    // winner pushed finds nothing runnable (exit 3), as a local pick does.
    if (loser.code === 5) expect(loser.stderr).toMatch(new RegExp(`claimed on another clone first, by agent:p${w}`));
    else {
      expect(loser.code, loser.stderr).toBe(3);
      expect(loser.stderr).toMatch(/nothing is runnable/);
    }
    // The winner's claim and focus are on the remote already: the loser sees them after a plain sync.
    await c.must(1 - w, ['sync']);
    expect((await c.show(1 - w)).claim.holder).toBe(`agent:p${w}`);
    await c.must(w, ['release', c.id], { HOLON_ACTOR: `agent:p${w}` });
    await c.must(1 - w, ['sync']);
    expect(Date.parse((await c.show(1 - w)).claim.expires_at)).toBeLessThanOrEqual(Date.now() + 1000);
    expect(JSON.parse(await c.must(1 - w, ['claim', c.id, '--json'], { HOLON_ACTOR: `agent:p${1 - w}` })).claim).toMatchObject({ holder: `agent:p${1 - w}`, epoch: 2 });
  });
});
