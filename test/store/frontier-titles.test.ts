import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { currentTitles, titleIndexOf } from '../../src/store/frontier-titles.js';
import { titleHash } from '../../src/store/graph-index.js';
import { openHome } from '../../src/store/home.js';
import { listAll, type Listing } from '../../src/store/work-listing.js';

/**
 * The title check of a cached frontier answer (frontier-titles.ts) on its own: a home with two items,
 * an answer showing both, and the snapshot's title hashes as the frontier keeps them.
 */
async function setup() {
  const p = await project();
  const a = await p.create('first');
  const b = await p.create('second');
  const home = openHome({ home: p.home, cwd: p.dir, env: {} });
  const [listing] = listAll(home, ['main']);
  const titles = { [a]: 'first', [b]: 'second' };
  const snap = (t: Record<string, string>) => ({ main: { names: listing.joined, titles: Float64Array.from(listing.names, (n) => titleHash(t[n.slice(0, -3)])) } });
  const answer = (t: Record<string, string>) => Buffer.from(JSON.stringify({ agent: 'main', runnable: [a, b].map((id) => ({ id, title: t[id], code: 'runnable' })), counts: { total: 2 } }, null, 2));
  const index = titleIndexOf([listing], snap(titles), [a, b])!;
  return { p, home, listing, a, b, titles, snap, answer, index };
}

describe('the title index of a cached frontier answer', () => {
  it('gives the answer itself when no shown title changed', async () => {
    const { home, listing, titles, snap, answer, index } = await setup();
    const text = answer(titles);
    expect(currentTitles(home, text, index, [listing], snap(titles))).toMatchObject({ text, patched: 0 });
  });

  it('writes a changed title (quotes, a backslash, non-ASCII) into the answer, the same bytes a fresh answer has', async () => {
    const { p, home, listing, a, titles, snap, answer, index } = await setup();
    const now = { ...titles, [a]: 'a "quoted" \\ título' };
    writeFileSync(p.workFile(a), readFileSync(p.workFile(a), 'utf8').replace(/^title: .*$/m, `title: ${JSON.stringify(now[a])}`));
    const r = currentTitles(home, answer(titles), index, [listing], snap(now))!;
    expect(r.patched).toBe(1);
    expect(r.text.toString()).toBe(answer(now).toString());
    // The index it returns vouches for the new title: checked again, nothing more to patch.
    expect(currentTitles(home, r.text, r.index, [listing], snap(now))).toMatchObject({ patched: 0 });
  });

  it('cannot say (the answer is evaluated again) when the names are listed in another order', async () => {
    const { home, listing, titles, answer, index } = await setup();
    const names = [...listing.names].reverse();
    const other = { ...listing, names, joined: names.join('\n') } as Listing;
    const snap = { main: { names: other.joined, titles: Float64Array.from(names, (n) => titleHash(titles[n.slice(0, -3)])) } };
    expect(currentTitles(home, answer(titles), index, [other], snap)).toBeNull();
  });

  it('cannot say when the file holds yet another title than the snapshot says', async () => {
    const { p, home, listing, a, titles, snap, answer, index } = await setup();
    writeFileSync(p.workFile(a), readFileSync(p.workFile(a), 'utf8').replace(/^title: .*$/m, 'title: "changed again"'));
    expect(currentTitles(home, answer(titles), index, [listing], snap({ ...titles, [a]: 'renamed once' }))).toBeNull();
  });

  it('cannot say when the entry is not in the answer where entries are written', async () => {
    const { p, home, listing, a, b, titles, snap, index } = await setup();
    writeFileSync(p.workFile(a), readFileSync(p.workFile(a), 'utf8').replace(/^title: .*$/m, 'title: "renamed"'));
    const flat = Buffer.from(JSON.stringify({ runnable: [a, b].map((id) => ({ id, title: titles[id] })) }));
    expect(currentTitles(home, flat, index, [listing], snap({ ...titles, [a]: 'renamed' }))).toBeNull();
  });
});
