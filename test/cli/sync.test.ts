import { describe, expect, it } from 'vitest';
import { clones } from '../helpers/clones.js';
import { until } from '../helpers/watch.js';

const at = (min: number) => ({ HOLON_NOW: `2026-12-01T09:${String(min).padStart(2, '0')}:00Z` });

/** Two clones edit one item concurrently; both sync (the second one merges through the driver). */
async function pair(edit0: (c: Awaited<ReturnType<typeof clones>>) => Promise<unknown>, edit1: (c: Awaited<ReturnType<typeof clones>>) => Promise<unknown>) {
  const c = await clones(2);
  await edit0(c);
  await edit1(c);
  const revs = [(await c.show(0)).revision, (await c.show(1)).revision];
  await c.must(0, ['sync']);
  const second = await c.h(1, ['sync', '--json']);
  return { c, revs, second };
}

describe('holon sync: concurrent edits of one item on two clones, merged through the driver', () => {
  it('progress / progress: both entries, once each, in time order; revision above both sides', async () => {
    const { c, revs, second } = await pair(
      (c) => c.must(0, ['progress', c.id, 'found the missing tenant check'], at(10)),
      (c) => c.must(1, ['progress', c.id, 'reproduced the export bug'], at(5)),
    );
    expect(second.code).toBe(0);
    const r = JSON.parse(second.stdout);
    expect(r).toMatchObject({ pushed: true, conflicts: [], incoming: { changed_items: [c.id] } });
    await c.must(0, ['sync']);
    for (const i of [0, 1]) {
      const item = await c.show(i);
      expect(item.progress.map((p: { at: string; text: string }) => `${p.at} ${p.text}`)).toEqual(['2026-12-01T09:05:00Z reproduced the export bug', '2026-12-01T09:10:00Z found the missing tenant check']);
      expect(item.revision).toBeGreaterThan(Math.max(...revs));
      expect(item.status).toBe('open');
    }
    expect(c.read(0)).toBe(c.read(1));
    expect((await c.h(1, ['check'])).code).toBe(0);
  });

  it('progress / evidence: the note and the evidence with its commit', async () => {
    const { c, second } = await pair(
      (c) => c.must(0, ['progress', c.id, 'reviewing the diff'], at(1)),
      (c) => c.must(1, ['evidence', c.id, 'regression test fails without the fix', '--commit', '3f9c2ab'], at(2)),
    );
    expect(second.code).toBe(0);
    const item = await c.show(1);
    expect(item.progress).toEqual([{ at: '2026-12-01T09:01:00Z', text: 'reviewing the diff' }]);
    expect(item.evidence).toEqual([{ at: '2026-12-01T09:02:00Z', text: 'regression test fails without the fix', commit: '3f9c2ab' }]);
  });

  it('wait / complete: done with its delivery; the wait added meanwhile is cancelled as completion does', async () => {
    const { c, second } = await pair(
      (c) => c.must(0, ['wait', c.id, '--for', 'external:ci:run/7731', '--reason', 'CI on the fix'], at(1)),
      (c) => c.must(1, ['complete', c.id, '--result', 'approved', '--evidence', 'CI 7730 green', '--no-followup', 'review delivered'], at(2)),
    );
    expect(second.code).toBe(0);
    const item = await c.show(1);
    expect(item.status).toBe('done');
    expect(item.delivery).toMatchObject({ result: 'approved', evidence: ['CI 7730 green'], completed_at: '2026-12-01T09:02:00Z' });
    expect(item.no_followup).toBe('review delivered');
    expect(item.waits).toHaveLength(1);
    expect(item.waits[0]).toMatchObject({ kind: 'external', resource: 'ci:run/7731', status: 'cancelled', settled_reason: 'work_item_completed' });
    expect((await c.h(1, ['check'])).code).toBe(0);
  });

  it('priority / priority: a conflict; sync exits 5 naming the file, check reports file, line, field and fix', async () => {
    const { c, second } = await pair(
      (c) => c.must(0, ['edit', c.id, '--priority', 'P0']),
      (c) => c.must(1, ['edit', c.id, '--priority', 'P3']),
    );
    expect(second.code).toBe(5);
    const r = JSON.parse(second.stdout);
    expect(r.conflicts).toEqual([`.holon/agents/main/work/${c.id}.md`]);
    expect(second.stderr).toMatch(/conflicts in .*\.md/);
    const check = await c.h(1, ['check', '--json']);
    expect(check.code).toBe(3);
    const p = JSON.parse(check.stdout).problems;
    expect(p).toEqual([expect.objectContaining({ file: `.holon/agents/main/work/${c.id}.md`, message: expect.stringMatching(/priority changed on both sides; was not set/), fix: expect.stringMatching(/keep one side/) })]);
    expect(c.read(1).split('\n')[p[0].line - 1]).toMatch(/^<<<<<<< ours/);
    // A second sync refuses while the merge is unfinished, and says how to finish it.
    const again = await c.h(1, ['sync']);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/a merge is in progress.*unresolved/);
    // Resolving (keep theirs: P0) and committing lets the next sync through.
    const text = c.read(1).replace(/<<<<<<< ours[^\n]*\n[^\n]*\n=======\n([^\n]*)\n>>>>>>> theirs\n/, '$1\n');
    (await import('node:fs')).writeFileSync(c.file(1), text);
    c.git(1, 'add', '-A');
    c.git(1, 'commit', '-q', '--no-edit');
    expect((await c.h(1, ['sync'])).code).toBe(0);
    expect((await c.show(1)).priority).toBe('P0');
  });

  it('claim / claim by two holders: a conflict naming both holders', async () => {
    const { c, second } = await pair(
      (c) => c.must(0, ['claim', c.id, '--ttl', '2h'], { HOLON_ACTOR: 'agent:alpha' }),
      (c) => c.must(1, ['claim', c.id], { HOLON_ACTOR: 'agent:beta' }),
    );
    expect(second.code).toBe(5);
    const check = JSON.parse((await c.h(1, ['check', '--json'])).stdout);
    expect(check.problems[0].message).toMatch(/claim: two live claims, by agent:beta and by agent:alpha/);
  });

  it('claim / renew by one holder: the higher version wins, no conflict', async () => {
    const c = await clones(2);
    await c.must(0, ['claim', c.id, '--ttl', '1h'], { HOLON_ACTOR: 'agent:alpha', ...at(0) });
    await c.must(0, ['sync']);
    await c.must(1, ['sync']);
    await c.must(0, ['renew', c.id, '--ttl', '3h'], { HOLON_ACTOR: 'agent:alpha', ...at(10) });
    await c.must(1, ['progress', c.id, 'still on it'], at(11));
    await c.must(0, ['sync']);
    expect((await c.h(1, ['sync'])).code).toBe(0);
    expect((await c.show(1)).claim).toMatchObject({ holder: 'agent:alpha', version: 2, epoch: 1, expires_at: '2026-12-01T12:10:00Z' });
  });
});

describe('holon sync: what it refuses and reports', () => {
  it('nothing to do: reports nothing in or out; unrelated staged changes are refused', async () => {
    const c = await clones(1);
    const r = JSON.parse(await c.must(0, ['sync', '--json']));
    expect(r).toMatchObject({ committed: [], pushed: false, incoming: { commits: 0 }, outgoing: { commits: 0 } });
    (await import('node:fs')).writeFileSync(`${c.dirs[0]}/notes.txt`, 'x');
    c.git(0, 'add', 'notes.txt');
    const refused = await c.h(0, ['sync']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/unrelated staged changes: notes.txt/);
  });

  it('new items from another clone are reported; local/ never leaves the machine', async () => {
    const c = await clones(2);
    const id = (await c.must(1, ['new', 'Release 1.2'])).trim();
    await c.must(1, ['sync']);
    const r = JSON.parse(await c.must(0, ['sync', '--json']));
    expect(r.incoming.new_items).toEqual([{ id, agent: 'main', title: 'Release 1.2' }]);
    expect(c.git(0, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter((f) => f.includes('/local/'))).toEqual([]);
  });

  it("a task's result travels: a wait on it from another clone gets the result at once", async () => {
    const c = await clones(2);
    const handle = (await c.must(0, ['task', 'run', '--work', c.id, '--', 'sh', '-c', 'echo built-on-a; exit 3'])).trim().split(/\s/)[0];
    await until(async () => JSON.parse(await c.must(0, ['task', 'list', '--json'])).tasks?.some((t: { id: string; status: string }) => t.id === handle && t.status !== 'running'), 30_000, 'the task to end');
    await until(async () => (await c.h(0, ['inbox', '--json'])).stdout.includes(`task:${handle}`), 30_000, 'its result event');
    await c.must(0, ['sync']);
    await c.must(1, ['sync']);
    const r = JSON.parse(await c.must(1, ['wait', c.id, '--for', `task:${handle}`, '--reason', 'the build', '--json']));
    expect(r).toMatchObject({ registered: false, result: { task: handle, status: 'finished', exit_code: 3, output_tail: expect.stringContaining('built-on-a') } });
  });
});
