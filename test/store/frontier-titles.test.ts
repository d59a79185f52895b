import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { entryOrderKey, type Frontier } from '../../src/core/frontier.js';
import { currentTitles, titleIndexOf, type TitlePatch } from '../../src/store/frontier-titles.js';
import { bufferText } from '../../src/store/answer-text.js';
import { addHash, prioHash, titleHash } from '../../src/store/graph-index.js';
import { openHome } from '../../src/store/home.js';
import { listAll, type Listing } from '../../src/store/work-listing.js';

type Shown = Record<string, { title: string; priority: string | null }>;

/** What the check reads of a snapshot, as graph-index.ts keeps it: names, title and priority hashes, their sums. */
function snapshotOf(names: string[], s: Shown) {
  const titles = Float64Array.from(names, (n) => titleHash(n.slice(0, -3), s[n.slice(0, -3)].title));
  const prios = Float64Array.from(names, (n) => prioHash(n.slice(0, -3), s[n.slice(0, -3)].priority));
  return { names: names.join('\n'), titles, prios, sums: Float64Array.of(0, titles.reduce(addHash, 0), prios.reduce(addHash, 0)) };
}

/** A patch's parts as one text (a text held whole gives no file ranges). */
const joined = (r: TitlePatch) => Buffer.concat(r.parts as Buffer[]);

/**
 * The entry check of a cached frontier answer (frontier-titles.ts) on its own: a home with three
 * items, an answer showing them in the frontier's order, and the snapshot's title and priority hashes
 * as the frontier keeps them.
 */
async function setup(opts: { cut?: number } = {}) {
  const p = await project();
  const a = await p.create('first', ['--priority', 'P1']);
  const b = await p.create('second', ['--priority', 'P2']);
  const c = await p.create('third', ['--priority', 'P3']);
  const home = openHome({ home: p.home, cwd: p.dir, env: {} });
  const [listing] = listAll(home, ['main']);
  const shown: Shown = { [a]: { title: 'first', priority: 'P1' }, [b]: { title: 'second', priority: 'P2' }, [c]: { title: 'third', priority: 'P3' } };
  const snap = (s: Shown) => ({ main: snapshotOf(listing.names, s) });
  /** The answer as the frontier writes it: runnable in order, the other channels empty. */
  const frontier = (s: Shown): Frontier => {
    const runnable = [a, b, c].map((id) => ({ id, title: s[id].title, agent: 'main', class: 'advancement_task', status: 'open', priority: s[id].priority, created_at: '2026-11-01T00:00:00Z', code: 'runnable', detail: 'every check passed', claim: null }));
    runnable.sort((x, y) => (entryOrderKey(x, 'agent:main') < entryOrderKey(y, 'agent:main') ? -1 : 1));
    const f = { agent: 'main', holder: 'agent:main', now: '', counts: { total: 3 }, runnable, needs_decision: [], needs_action: [], waiting: [], resume_candidates: [], not_runnable: [], truncated: {} } as unknown as Frontier;
    if (opts.cut) {
      f.runnable = f.runnable.slice(0, 3 - opts.cut);
      f.truncated = { runnable: opts.cut };
    }
    return f;
  };
  const answer = (s: Shown) => Buffer.from(JSON.stringify(frontier(s), null, 2));
  const index = titleIndexOf([listing], snap(shown), frontier(shown))!;
  const edit = (id: string, field: 'title' | 'priority', value: string) => writeFileSync(p.workFile(id), readFileSync(p.workFile(id), 'utf8').replace(new RegExp(`^${field}: .*$`, 'm'), `${field}: ${JSON.stringify(value)}`));
  return { p, home, listing, a, b, c, shown, snap, answer, index, edit };
}

describe('the entry index of a cached frontier answer', () => {
  it('gives the answer itself when no shown title or priority changed', async () => {
    const { home, listing, shown, snap, answer, index } = await setup();
    // Nothing to patch: the answer's text is not even read (a pick has read only its start).
    expect(currentTitles(home, () => expect.unreachable('the text is read'), index, [listing], snap(shown), 'agent:main')).toMatchObject({ parts: [], patched: 0, reindexed: false });
  });

  it('writes a changed title (quotes, a backslash, non-ASCII) into the answer, the same bytes a fresh answer has', async () => {
    const { home, listing, a, shown, snap, answer, index, edit } = await setup();
    const now = { ...shown, [a]: { ...shown[a], title: 'a "quoted" \\ título' } };
    edit(a, 'title', now[a].title);
    const r = currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap(now), 'agent:main')!;
    expect(r.patched).toBe(1);
    expect(joined(r).toString()).toBe(answer(now).toString());
    // The index it returns vouches for the new title: checked again, nothing more to patch.
    expect(currentTitles(home, () => bufferText(joined(r)), r.index, [listing], snap(now), 'agent:main')).toMatchObject({ patched: 0 });
  });

  it('moves an entry whose priority changed to its place, the same bytes a fresh answer has', async () => {
    const { home, listing, a, c, shown, snap, answer, index, edit } = await setup();
    // The first goes last, the last first, in one answer: both moved.
    const now = { ...shown, [a]: { ...shown[a], priority: 'P4' }, [c]: { ...shown[c], priority: 'P0' } };
    edit(a, 'priority', 'P4');
    edit(c, 'priority', 'P0');
    const r = currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap(now), 'agent:main')!;
    expect(r.patched).toBe(2);
    expect(joined(r).toString()).toBe(answer(now).toString());
    expect(JSON.parse(joined(r).toString()).runnable.map((e: any) => e.priority)).toEqual(['P0', 'P2', 'P4']);
    expect(currentTitles(home, () => bufferText(joined(r)), r.index, [listing], snap(now), 'agent:main')).toMatchObject({ patched: 0 });
    // The next patch finds the entries by the lengths this one recorded (a wrong one: by a search).
    const again = { ...now, [a]: { ...now[a], priority: 'P1' } };
    edit(a, 'priority', 'P1');
    const wrong = { ...r.index, quads: r.index.quads.slice() };
    wrong.quads[4] += 3;
    for (const index2 of [r.index, wrong]) {
      const r2 = currentTitles(home, () => bufferText(joined(r)), index2, [listing], snap(again), 'agent:main')!;
      expect(r2.patched).toBe(1);
      expect(joined(r2).toString()).toBe(answer(again).toString());
    }
  });

  it('finds the changed entries from the files that changed (sumsSince) as the check of every entry does', async () => {
    const { home, listing, a, b, c, shown, snap, answer, index, edit } = await setup({ cut: 1 });
    const was = snap(shown).main.sums;
    // A title shown, a priority that moves a shown entry, a title the cap hides: each with and without `since`.
    const cases: Array<[string, 'title' | 'priority', string]> = [[a, 'title', 'renamed'], [b, 'priority', 'P0'], [c, 'title', 'hidden, renamed']];
    for (const [id, field, value] of cases) {
      edit(id, field, value);
      const now = { ...shown, [id]: { ...shown[id], [field]: value } };
      const since = { before: [[was[0], was[1], was[2]] as const], files: [[[listing.names.indexOf(`${id}.md`), null] as const]] };
      const full = currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap(now), 'agent:main')!;
      const quick = currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap(now), 'agent:main', { since })!;
      expect(full, `${id} ${field}`).not.toBeNull();
      expect(quick, `${id} ${field}`).not.toBeNull();
      expect([quick.patched, quick.reindexed, joined(quick).toString()]).toEqual([full.patched, full.reindexed, joined(full).toString()]);
      expect(quick.index.listings).toEqual(full.index.listings);
      expect([...quick.index.quads]).toEqual([...full.index.quads]);
      edit(id, field, shown[id][field]!);
    }
    // A snapshot found with other sums than the index's (another call took a change in): the full check.
    const since = { before: [[was[0], was[1] + 1, was[2]] as const], files: [[] as const] };
    edit(a, 'title', 'renamed');
    const r = currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap({ ...shown, [a]: { ...shown[a], title: 'renamed' } }), 'agent:main', { since })!;
    expect(r.patched).toBe(1);
  });

  it('sees two entries that swap titles, which leave the sum of title hashes as it was without their ids', async () => {
    const { home, listing, a, b, shown, snap, answer, index, edit } = await setup();
    const now = { ...shown, [a]: { ...shown[a], title: 'second' }, [b]: { ...shown[b], title: 'first' } };
    edit(a, 'title', 'second');
    edit(b, 'title', 'first');
    const r = currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap(now), 'agent:main')!;
    expect(r.patched).toBe(2);
    expect(joined(r).toString()).toBe(answer(now).toString());
  });

  it('patches nothing for a title changed where the answer does not show it, and vouches for the new sums', async () => {
    const { home, listing, c, shown, snap, answer, index, edit } = await setup({ cut: 1 });
    const now = { ...shown, [c]: { ...shown[c], title: 'not shown' } };
    edit(c, 'title', 'not shown');
    const r = currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap(now), 'agent:main')!;
    // Nothing patched: no parts (the answer is reused as it is stored), a new index.
    expect(r).toMatchObject({ parts: [], patched: 0, reindexed: true });
    expect(currentTitles(home, () => bufferText(answer(shown)), r.index, [listing], snap(now), 'agent:main')).toMatchObject({ patched: 0, reindexed: false });
  });

  it('cannot say when an entry would move past the end of a channel its cap cut', async () => {
    const { home, listing, a, shown, snap, answer, index, edit } = await setup({ cut: 1 });
    edit(a, 'priority', 'P4');
    expect(currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap({ ...shown, [a]: { ...shown[a], priority: 'P4' } }), 'agent:main')).toBeNull();
  });

  it('cannot say when the priority of an item it does not show changed', async () => {
    const { home, listing, c, shown, snap, answer, index, edit } = await setup({ cut: 1 });
    // The third is cut: at P0 it belongs first, which only an evaluation can show.
    edit(c, 'priority', 'P0');
    expect(currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap({ ...shown, [c]: { ...shown[c], priority: 'P0' } }), 'agent:main')).toBeNull();
  });

  it('cannot say (the answer is evaluated again) when the names are listed in another order', async () => {
    const { home, listing, shown, answer, index } = await setup();
    const names = [...listing.names].reverse();
    const other = { ...listing, names, joined: names.join('\n') } as Listing;
    const snap = { main: snapshotOf(names, shown) };
    expect(currentTitles(home, () => bufferText(answer(shown)), index, [other], snap, 'agent:main')).toBeNull();
  });

  it('cannot say when the file holds yet another title or priority than the snapshot says', async () => {
    const { home, listing, a, shown, snap, answer, index, edit } = await setup();
    edit(a, 'title', 'changed again');
    expect(currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap({ ...shown, [a]: { ...shown[a], title: 'renamed once' } }), 'agent:main')).toBeNull();
    edit(a, 'title', 'first');
    edit(a, 'priority', 'P0');
    expect(currentTitles(home, () => bufferText(answer(shown)), index, [listing], snap({ ...shown, [a]: { ...shown[a], priority: 'P4' } }), 'agent:main')).toBeNull();
  });

  it('cannot say when the entry is not in the answer where entries are written', async () => {
    const { home, listing, a, shown, snap, index, edit } = await setup();
    edit(a, 'title', 'renamed');
    const flat = Buffer.from(JSON.stringify({ runnable: Object.keys(shown).map((id) => ({ id, title: shown[id].title })) }));
    expect(currentTitles(home, () => bufferText(flat), index, [listing], snap({ ...shown, [a]: { ...shown[a], title: 'renamed' } }), 'agent:main')).toBeNull();
  });
});

describe('the order key of a printed entry', () => {
  const e = (code: string, claim: string | null, priority = 'P2') => ({ id: 'w-1', priority, created_at: '2026-11-01T00:00:00Z', code, claim: claim ? { holder: claim, expires_at: null } : null });
  it("puts the holder's claims first only where the claims check ran and passed", () => {
    const own = (code: string, claim: string | null) => entryOrderKey(e(code, claim), 'agent:main')[0];
    expect(own('runnable', 'agent:main')).toBe('0');
    expect(own('stale_age', 'agent:main')).toBe('0');
    // After the claims check (capabilities, workspace): its own claim counted.
    expect(own('capability_missing', 'agent:main')).toBe('0');
    expect(own('write_scope_conflict', 'agent:main')).toBe('0');
    // Stopped before it (dependencies, waits, gates) or by it: not.
    expect(own('dependency_open', 'agent:main')).toBe('1');
    expect(own('waiting', 'agent:main')).toBe('1');
    expect(own('gate_pending', 'agent:main')).toBe('1');
    expect(own('runnable', 'agent:peer')).toBe('1');
    expect(own('runnable', null)).toBe('1');
  });
});
