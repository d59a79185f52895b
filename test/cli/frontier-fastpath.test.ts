import { appendFileSync, cpSync, existsSync, linkSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project, tempDir } from '../helpers/cli.js';
import { startKeeper, until } from '../helpers/watch.js';
import { builtinsLoaded, cryptoIn } from '../helpers/loaded.js';
import { git } from '../helpers/clones.js';
import { graphProject } from '../helpers/graph.js';

/**
 * The fast path (cached listing, graph cache with its patch log, cached answer) must give exactly the
 * frontier a full evaluation gives, after every kind of change a home sees. The full evaluation runs
 * in the same home and checkout with local/ moved aside (no cache at all), then local/ comes back, so
 * the fast path keeps the state it built.
 */

const NOW = '2026-11-30T06:00:00Z';

/** Waits until a file's last change is older than the listing's racy window (2 s; RACY_MS). */
async function settled(file: string): Promise<void> {
  while (Date.now() - statSync(file).ctimeMs < 2100) await new Promise((r) => setTimeout(r, 100));
}

/**
 * Every kind of change, each checked against a full evaluation. With `keeper`, a `holon index` runs
 * beside: the fast calls then list the files through it (store/kept-listing.ts), and their traces
 * are returned so the test can tell that they did.
 */
async function everyChange(keeper: boolean): Promise<string[]> {
  const traces: string[] = [];
  {
    const { p, work, ids } = await graphProject(300);
    // The keeper's answer is waited for (up to 60 s): on a loaded machine it can take more than the
    // second a command gives it by default, and this test checks that it answered.
    const env = (now = NOW) => ({ HOLON_NOW: now, HOLON_TRACE_INDEX: '1', HOLON_INDEX_WAIT_MS: '60000' });
    const local = join(p.home, 'local');
    const keeperProc = keeper ? await startIndex(p.dir) : null;

    /** The fast answer (twice: built, then reused), checked against a full evaluation without caches. */
    const same = async (what: string, now = NOW) => {
      const fast = await p.h(['frontier', '--json', '--all'], env(now));
      expect(fast.code, `${what}: ${fast.stderr}`).toBe(0);
      const reused = await p.h(['frontier', '--json', '--all'], env(now));
      traces.push(`${what}: ${fast.stderr.trim()} / ${reused.stderr.trim()}`);
      renameSync(local, `${local}.kept`);
      try {
        const full = await p.h(['frontier', '--json', '--all'], env(now));
        expect(full.code, `${what}: ${full.stderr}`).toBe(0);
        expect(JSON.parse(fast.stdout), what).toEqual(JSON.parse(full.stdout));
        expect(JSON.parse(reused.stdout), `${what} (reused)`).toEqual(JSON.parse(full.stdout));
      } finally {
        rmSync(local, { recursive: true, force: true });
        renameSync(`${local}.kept`, local);
      }
      return JSON.parse(fast.stdout);
    };
    const file = (id: string) => join(work, `${id}.md`);
    const entryOf = (f: any, id: string) => ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable'].map((c) => f[c].find((x: any) => x.id === id)).find(Boolean);
    const verdict = (f: any, id: string) => {
      for (const c of ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable']) {
        const e = f[c].find((x: any) => x.id === id);
        if (e) return `${c}:${e.code}`;
      }
      return 'closed';
    };

    const base = await same('unchanged');
    expect(base.counts.total).toBe(300);
    const open = base.runnable.map((e: any) => e.id);
    expect(open.length).toBeGreaterThan(20);

    // A hand edit in place (same inode, folder mtime unchanged): exclude the agent.
    const a = open[0];
    writeFileSync(file(a), readFileSync(file(a), 'utf8').replace('revision: 1', 'revision: 1\nexclude: ["main"]'));
    expect(verdict(await same('hand edit in place'), a)).toBe('not_runnable:excluded');

    // A hand edit by rename (how many editors save): done.
    const b = open[1];
    writeFileSync(`${file(b)}.tmp`, readFileSync(file(b), 'utf8').replace('status: "open"', 'status: "done"'));
    renameSync(`${file(b)}.tmp`, file(b));
    // (A whole-second mtime on the next file, so the step after can restore it exactly; cached by this
    // call once its ctime is old enough for its key to be trusted.)
    const c = open[2];
    utimesSync(file(c), 1_796_000_000, 1_796_000_000);
    await settled(file(c));
    expect(verdict(await same('hand edit by rename'), b)).toBe('closed');

    // Same size and same mtime: only the ctime moved (a tool that restores the mtime).
    const st = statSync(file(c));
    const text = readFileSync(file(c), 'utf8');
    const swapped = text.replace('status: "open"', 'status: "done"');
    expect(swapped.length).toBe(text.length);
    writeFileSync(file(c), swapped);
    utimesSync(file(c), 1_796_000_000, 1_796_000_000);
    expect(statSync(file(c)).mtimeMs).toBe(st.mtimeMs);
    expect(statSync(file(c)).size).toBe(st.size);
    // Past the racy window, so only the ctime in the file's key can tell (not the re-read of a fresh file).
    await settled(file(c));
    expect(verdict(await same('same size and mtime'), c)).toBe('closed');

    // A new file and a removed one.
    const d = 'w-fnew00';
    writeFileSync(file(d), `---\nid: "${d}"\ntitle: "new by hand"\nagent: "main"\nstatus: "open"\nclass: "advancement_task"\npriority: "P0"\ncreated_at: "2026-11-01T00:00:00Z"\nrevision: 1\n---\n`);
    unlinkSync(file(open[3]));
    const added = await same('new and removed file');
    expect(added.runnable[0].id).toBe(d);
    expect(verdict(added, open[3])).toBe('closed');
    expect(added.counts.total).toBe(300);

    // holon's own writes: a progress note (body only), an edit of a graph field, a new item.
    expect((await p.h(['progress', open[4], 'a note'], env())).code).toBe(0);
    await same('progress note');
    expect((await p.h(['edit', open[5], '--add-depends-on', open[6]], env())).code).toBe(0);
    expect(verdict(await same('holon edit'), open[5])).toBe('not_runnable:dependency_open');
    expect((await p.h(['new', 'made by holon', '--priority', 'P0'], env())).code).toBe(0);
    await same('holon new');
    // A new title moves nothing but that entry's text, which the cached answer gets patched in
    // (frontier-titles.ts): by holon, by hand (with quotes and non-ASCII), for an item not shown.
    expect((await p.h(['edit', open[7], '--title', 'renamed by holon'], env())).code).toBe(0);
    expect(entryOf(await same('holon edit --title'), open[7]).title).toBe('renamed by holon');
    writeFileSync(file(open[8]), readFileSync(file(open[8]), 'utf8').replace(/^title: .*$/m, 'title: "a \\"quoted\\" título"'));
    expect(entryOf(await same('title by hand'), open[8]).title).toBe('a "quoted" título');
    const closed = readdirSync(work).filter((n) => /^w-.*\.md$/.test(n)).map((n) => n.slice(0, -3)).find((id) => verdict(base, id) === 'closed')!;
    writeFileSync(file(closed), readFileSync(file(closed), 'utf8').replace(/^title: .*$/m, 'title: "closed, renamed"'));
    await same('title of an item not shown');
    // A gate of this agent's that is stopped itself is shown twice (as a decision too): both entries.
    const channels = ['runnable', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable'];
    const twice = base.needs_decision.map((e: any) => e.id).find((id: string) => channels.some((c) => base[c].some((x: any) => x.id === id)));
    expect(twice).toBeDefined();
    expect((await p.h(['edit', twice, '--title', 'gate renamed'], env())).code).toBe(0);
    const shownTwice = await same('title of an entry shown twice');
    expect(shownTwice.needs_decision.find((e: any) => e.id === twice).title).toBe('gate renamed');
    // A new priority changes no verdict either, only that entry's text and its place in its channel:
    // patched in too, by holon and by hand, with the holder's own claims in play (they sort first
    // where the claims check ran: runnable, or stopped after it; not where a dependency stopped it).
    // (open lists P0 first: these go down.)
    expect(entryOf(base, open[9]).priority).toBe('P0');
    expect((await p.h(['edit', open[9], '--priority', 'P3'], env())).code).toBe(0);
    expect(entryOf(await same('holon edit --priority'), open[9]).priority).toBe('P3');
    const held = base.not_runnable.find((e: any) => e.code === 'dependency_open' && !readFileSync(file(e.id), 'utf8').includes('claim:')).id;
    const add = (id: string, lines: string) => writeFileSync(file(id), readFileSync(file(id), 'utf8').replace('revision: 1', `revision: 1\n${lines}`));
    const mine = 'claim:\n  holder: "agent:main"\n  claimed_at: "2026-11-30T05:00:00Z"\n  version: 1\n  epoch: 1';
    add(open[10], mine);
    add(open[11], `requires:\n  - "no-such-capability"\n${mine}`);
    add(held, mine);
    const claimed = await same('own claims');
    expect(claimed.runnable[0].id).toBe(open[10]);
    expect(claimed.not_runnable[0].id).toBe(open[11]);
    expect(verdict(claimed, held)).toBe('not_runnable:dependency_open');
    const prio = (id: string, value: string) => writeFileSync(file(id), readFileSync(file(id), 'utf8').replace(/^priority: .*$/m, `priority: "${value}"`));
    for (const [id, value] of [[open[10], 'P4'], [open[11], 'P4'], [held, entryOf(base, held).priority === 'P0' ? 'P1' : 'P0'], [open[12], 'P4']]) prio(id, value);
    const reordered = await same('priorities by hand');
    expect(reordered.runnable[0].id).toBe(open[10]);
    expect(reordered.not_runnable[0].id).toBe(open[11]);
    prio(closed, 'P0');
    await same('priority of an item not shown');

    // The clock: past the leases' end and the at: conditions.
    const later = await same('clock change', '2026-11-30T07:30:00Z');
    expect(later.counts.resume_candidates).toBeGreaterThan(base.counts.resume_candidates);
    await same('clock back');

    // git checkout of another branch (different records, different HEAD for branch: main items).
    git(p.dir, 'add', '-A');
    git(p.dir, 'commit', '-qm', 'changes');
    git(p.dir, 'checkout', '-q', '-b', 'other');
    for (const id of open.slice(7, 12)) writeFileSync(file(id), readFileSync(file(id), 'utf8').replace(/priority: "P\d"/, 'priority: "P0"').replace('status: "open"', 'status: "blocked"'));
    git(p.dir, 'commit', '-qam', 'other branch');
    expect(verdict(await same('commit on other branch'), open[7])).toBe('not_runnable:blocked');
    git(p.dir, 'checkout', '-q', 'main');
    expect(verdict(await same('checkout main'), open[7])).not.toBe('not_runnable:blocked');
    git(p.dir, 'checkout', '-q', 'other');
    await same('checkout other');
    git(p.dir, 'checkout', '-q', 'main');
    await same('checkout main again');

    // git pull of changes made in another clone.
    const clone = join(tempDir(), 'clone');
    git(p.dir, 'clone', '-q', p.dir, clone);
    git(clone, 'config', 'user.email', 'c@test');
    git(clone, 'config', 'user.name', 'clone');
    const cwork = join(clone, '.holon/agents/main/work');
    for (const id of open.slice(12, 32)) {
      const f = join(cwork, `${id}.md`);
      writeFileSync(f, readFileSync(f, 'utf8').replace('status: "open"', 'status: "done"'));
    }
    git(clone, 'commit', '-qam', 'done in the clone');
    git(p.dir, 'pull', '-q', '--no-rebase', clone, 'main');
    const pulled = await same('git pull');
    for (const id of open.slice(12, 32)) expect(verdict(pulled, id)).toBe('closed');
    expect(existsSync(join(local, 'cache'))).toBe(true);
    expect(ids).toHaveLength(300);

    // A file with a second hard link elsewhere, written through that link: no event in the work
    // folder, so the keeper's listings always stat such a file.
    const e = open[33];
    const outside = join(tempDir(), 'link.md');
    linkSync(file(e), outside);
    // Making the link gives no event in the work folder either: the keeper's sweep finds it.
    if (keeperProc) await until(() => keeperProc.log().includes(`main/work/${e}.md changed with no file event`), 30_000, 'the sweep');
    await same('hard link made');
    writeFileSync(outside, readFileSync(outside, 'utf8').replace('status: "open"', 'status: "done"'));
    expect(verdict(await same('written through a hard link'), e)).toBe('closed');

    // The work folder replaced by another (a restore from a copy): the old folder's watch ends.
    const f = open[34];
    cpSync(work, `${work}.copy`, { recursive: true });
    writeFileSync(join(`${work}.copy`, `${f}.md`), readFileSync(file(f), 'utf8').replace('status: "open"', 'status: "blocked"'));
    renameSync(work, `${work}.old`);
    renameSync(`${work}.copy`, work);
    expect(verdict(await same('work folder replaced'), f)).toBe('not_runnable:blocked');
    writeFileSync(file(f), readFileSync(file(f), 'utf8').replace('status: "blocked"', 'status: "open"'));
    expect(verdict(await same('edit in the new folder'), f)).not.toBe('not_runnable:blocked');
    await keeperProc?.stop();
  }
  return traces;
}

/** A `holon index` in `cwd`, once it keeps the index. */
async function startIndex(cwd: string) {
  // A short sweep, so the step with a hard link does not wait 30 s for it.
  const k = startKeeper(cwd, { HOLON_INDEX_SWEEP_MS: '300' });
  await k.ready();
  return k;
}

describe('the frontier fast path', () => {
  it('gives the answer of a full evaluation after every kind of change', async () => {
    const traces = await everyChange(false);
    expect(traces.join('\n')).toMatch(/every file stat'ed \(no keeper runs\)/);
    expect(traces.join('\n')).not.toMatch(/kept/);
  }, 120_000);

  it('gives the same answers through an index keeper, which stats only what changed', async () => {
    const traces = await everyChange(true);
    const of = (what: string) => traces.find((t) => t.startsWith(`${what}:`)) ?? '';
    // The first call lists every file (no snapshot yet); from then on the keeper vouches. (Files changed
    // in the last 2 s are stat'ed again anyway: their numbers cannot prove them unchanged; RACY_MS.)
    expect(of('unchanged')).toMatch(/main: every file stat'ed \(no snapshot\)/);
    expect(of('hand edit in place')).toMatch(/^hand edit in place: holon: index: main: kept/);
    // Past the racy window: only the one file the keeper saw change.
    expect(of('same size and mtime')).toMatch(/^same size and mtime: holon: index: main: kept, 1 of 300 stat'ed/);
    expect(of('progress note')).toMatch(/main: kept/);
    expect(of('git pull')).toMatch(/main: kept/);
    // The linked file is looked at on every call after it got its second link.
    expect(of('written through a hard link')).toMatch(/main: kept, [1-9]\d* of/);
    expect(of('work folder replaced')).toMatch(/main: every file stat'ed \((folder not watched|snapshot older than the watch)\)/);
    expect(of('edit in the new folder')).toMatch(/main: kept/);
    // A new title is patched into the cached answer, not evaluated again. The first patch after an
    // evaluation finds where the entries are by a search of the whole text; the next one reads the
    // answer only where it patches it (store/answer-text.ts) and stores it as a delta of the answer
    // stored whole (store/answer-delta.ts), and writes the snapshot's numbers back without reading
    // them all (stat-index.ts writeUnread).
    expect(of('holon edit --title')).toMatch(/frontier: reused with 1 entry patched/);
    expect(of('title by hand')).toMatch(/frontier: reused with 1 entry patched\nholon: index: frontier: stored as a delta of an answer stored whole\nholon: index: frontier: the answer's first 16384 bytes read, the rest copied from its file/);
    expect(of('title by hand')).not.toMatch(/numbers read whole/);
    expect(of('title of an item not shown')).toMatch(/frontier: reused \(same digest, same titles\)/);
    expect(of('title of an entry shown twice')).toMatch(/frontier: reused with 1 entry patched/);
    // So is a new priority, the entry moved to its place.
    expect(of('holon edit --priority')).toMatch(/frontier: reused with 1 entry patched/);
    expect(of('priorities by hand')).toMatch(/frontier: reused with 4 entries patched/);
    expect(of('priority of an item not shown')).toMatch(/frontier: reused \(same digest, same titles\)/);
    expect(traces.join('\n')).not.toMatch(/no keeper runs|no answer/);
  }, 180_000);

  it('moves an entry whose priority changed in a channel its cap cut only where the answer can show it', async () => {
    const p = await project();
    // 60 items held by a missing dependency: not_runnable lists the first 50 (NOT_RUNNABLE_SHOWN).
    const work = join(p.home, 'agents/main/work');
    const ids = Array.from({ length: 60 }, (_, i) => `w-cut${String(i).padStart(3, '0')}`);
    ids.forEach((id, i) => writeFileSync(join(work, `${id}.md`), `---\nid: "${id}"\ntitle: "held ${i}"\nagent: "main"\nstatus: "open"\nclass: "advancement_task"\npriority: "P2"\ncreated_at: "2026-11-01T00:00:00Z"\nrevision: 1\ndepends_on:\n  - "w-missing"\n---\n`));
    const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1' };
    const local = join(p.home, 'local');
    /** The default view, fast (with its trace) and by a full evaluation, which must agree. */
    const check = async () => {
      const fast = await p.h(['frontier', '--json'], env);
      expect(fast.code, fast.stderr).toBe(0);
      renameSync(local, `${local}.kept`);
      try {
        const full = await p.h(['frontier', '--json'], env);
        expect(JSON.parse(fast.stdout)).toEqual(JSON.parse(full.stdout));
      } finally {
        rmSync(local, { recursive: true, force: true });
        renameSync(`${local}.kept`, local);
      }
      return { f: JSON.parse(fast.stdout), trace: fast.stderr };
    };
    const prio = (id: string, value: string) => writeFileSync(join(work, `${id}.md`), readFileSync(join(work, `${id}.md`), 'utf8').replace(/^priority: .*$/m, `priority: "${value}"`));
    expect((await check()).f.truncated).toEqual({ not_runnable: 10 });
    // Shown, and moved among the shown: patched.
    prio(ids[10], 'P1');
    const up = await check();
    expect(up.trace).toMatch(/frontier: reused with 1 entry patched/);
    expect(up.f.not_runnable[0].id).toBe(ids[10]);
    // Shown, and moved past the last one shown: what comes after it is not in the text.
    prio(ids[20], 'P4');
    const down = await check();
    expect(down.trace).toMatch(/frontier: evaluated/);
    expect(down.f.not_runnable.map((e: any) => e.id)).not.toContain(ids[20]);
    // Not shown, and still after the last one shown: nothing shown changes (store/frontier-cut.ts).
    prio(ids[57], 'P3');
    const out = await check();
    expect(out.trace).toMatch(/frontier: reused \(same digest, a priority changed where it is not shown\)/);
    expect(out.f.not_runnable.map((e: any) => e.id)).not.toContain(ids[57]);
    // With a title shown changed in the same call: patched, and still right.
    prio(ids[58], 'P4');
    writeFileSync(join(work, `${ids[11]}.md`), readFileSync(join(work, `${ids[11]}.md`), 'utf8').replace(/^title: .*$/m, 'title: "renamed"'));
    const both = await check();
    expect(both.trace).toMatch(/frontier: reused with 1 entry patched/);
    // Not shown, and now first.
    prio(ids[55], 'P0');
    const hidden = await check();
    expect(hidden.trace).toMatch(/frontier: evaluated/);
    expect(hidden.f.not_runnable[0].id).toBe(ids[55]);
  });

  it('keeps no snapshot for a folder with a file name holding a newline, and answers right through a keeper', async () => {
    const p = await project();
    const a = await p.create('first');
    const b = await p.create('second');
    // Snapshot names are one string, '\n' between them: this name would shift the names after it.
    writeFileSync(join(p.home, 'agents/main/work', 'odd\nname.md'), '---\nid: "odd"\n---\n');
    const keeper = await startIndex(p.dir);
    try {
      const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1', HOLON_INDEX_WAIT_MS: '60000' };
      const ids = async () => {
        const r = await p.h(['frontier', '--json'], env);
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout).runnable.map((e: any) => e.id).sort();
      };
      expect(await ids()).toEqual([a, b].sort());
      expect(existsSync(join(p.home, 'local/cache/graph-main.idx'))).toBe(false);
      writeFileSync(p.workFile(b), readFileSync(p.workFile(b), 'utf8').replace(/^status: .*$/m, 'status: done'));
      expect(await ids()).toEqual([a]);
    } finally {
      await keeper.stop();
    }
  });

  it('trusts no graph cache log line written by another build (or by one before lines had a stamp)', async () => {
    const p = await project();
    const id = await p.create('still open');
    // The real clock: the racy window is judged against it.
    const env = {};
    // Past the racy window, so the cache keeps the file's real key (a racy entry is never reused).
    await settled(p.workFile(id));
    expect((await p.json(['frontier'], env)).runnable.map((r: any) => r.id)).toEqual([id]);
    const cache = join(p.home, 'local/cache');
    const name = `${id}.md`;
    // The entry as the cache holds it now: the base, then the log's lines for the file.
    const log = existsSync(join(cache, 'graph-main.log')) ? readFileSync(join(cache, 'graph-main.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
    const key = (log.filter((l) => l[0] === name).pop()?.[1] ?? JSON.parse(readFileSync(join(cache, 'graph-main.json'), 'utf8')).entries[name])[0];
    expect(key).not.toMatch(/^~/);
    // Lines with the file's current key that say the item is done: one of an old build (no stamp),
    // one of another build (another stamp). Trusted, the item would vanish from the frontier.
    const forged = [key, 'D', 0, 1];
    appendFileSync(join(cache, 'graph-main.log'), `${JSON.stringify([name, forged])}\n${JSON.stringify([name, forged, 'ffffffffffffffff'])}\n`);
    // Without the cached answer, the next call loads the graph cache (base + log).
    for (const f of readdirSync(cache)) if (f.startsWith('frontier-main-')) unlinkSync(join(cache, f));
    expect((await p.json(['frontier'], env)).runnable.map((r: any) => r.id)).toEqual([id]);
  });

  it('without a keeper, names a listing that matches its snapshot but for a few files by the snapshot\'s digest: node:crypto is not loaded', async () => {
    const p = await project();
    const ids = [await p.create('one'), await p.create('two')];
    for (const id of ids) await settled(p.workFile(id));
    const env = { HOLON_AGENT: 'main', HOLON_TRACE_INDEX: '1' };
    await p.h(['frontier', '--json']);
    const unchanged = await builtinsLoaded(['frontier', '--json'], p.dir, env);
    expect(unchanged.stderr).toMatch(/frontier: reused \(no file changed\)/);
    expect(cryptoIn(unchanged)).toEqual([]);
    // A progress note: once past the racy window, one call stores the file's numbers and the next reuses the answer.
    expect((await p.h(['progress', ids[1], 'a note'])).code).toBe(0);
    await settled(p.workFile(ids[1]));
    await p.h(['frontier', '--json']);
    const after = await builtinsLoaded(['frontier', '--json'], p.dir, env);
    expect(after.stderr).toMatch(/frontier: reused \(no file changed\)/);
    expect(cryptoIn(after)).toEqual([]);
    // A hard-linked file is stat'ed on every call (never vouched for): the answer is still reused as is.
    linkSync(p.workFile(ids[0]), join(tempDir(), 'elsewhere.md'));
    await settled(p.workFile(ids[0]));
    for (let i = 0; i < 2; i++) await p.h(['frontier', '--json']);
    expect((await p.h(['frontier', '--json'], env)).stderr).toMatch(/frontier: reused \(no file changed\)/);
  });
});

