import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, tempDir } from '../helpers/cli.js';
import { freshClone, git, withoutLocal } from '../helpers/clones.js';
import { graphProject } from '../helpers/graph.js';
import { readStatIndex } from '../../src/store/stat-index.js';
import { FIXED } from '../../src/store/stat-index-layout.js';

/**
 * The machine's answers by content (store/content-answer.ts): a fresh clone of a state the machine
 * evaluated before restores the default answer and its indexes to local/ instead of evaluating, and
 * is answered as a full evaluation is, then and after every change. A key or a header that does not
 * hold, or a kept file that is torn, costs the evaluation. Each test gives the cache a folder of its own.
 */

const NOW = '2026-11-30T06:00:00Z';
const N = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RESTORED = "frontier: restored from the machine's answers by content";

/** A home of N items committed to git; `branch` keeps writeGraph's items that ask for a branch (they read the checkout). */
async function origin(opts: { n?: number; branch?: boolean; edit?: (work: string, ids: string[]) => void } = {}) {
  const { p, ids } = await graphProject(opts.n ?? N, (work, ids) => {
    if (!opts.branch) for (const id of ids) writeFileSync(join(work, `${id}.md`), readFileSync(join(work, `${id}.md`), 'utf8').replace('branch: "main"\n', ''));
    opts.edit?.(work, ids);
  });
  return { dir: p.dir, ids };
}

/** A fresh clone (helpers/clones.ts). */

const workFile = (dir: string, id: string) => join(dir, '.holon/agents/main/work', `${id}.md`);

/** `frontier --json` (the default answer) with the trace. */
async function frontier(dir: string, env: NodeJS.ProcessEnv = {}) {
  const r = await holon(['frontier', '--json'], { cwd: dir, env: { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1', ...env } });
  expect(r.code, r.stderr).toBe(0);
  return { json: JSON.parse(r.stdout), stderr: r.stderr, restored: r.stderr.includes(RESTORED), evaluated: r.stderr.includes('frontier: evaluated') };
}

/** The full evaluation of the same checkout: no local/, no machine cache; local/ is put back after. */
const full = (dir: string, env: NodeJS.ProcessEnv = {}) =>
  withoutLocal(dir, async () => {
    const r = await frontier(dir, { ...env, HOLON_CACHE_DIR: 'off' });
    expect(r.evaluated).toBe(true);
    return r.json;
  });

const answers = (cache: string) => (existsSync(cache) ? readdirSync(cache).filter((f) => f.startsWith('answer-')) : []);

/** A machine cache with the answer of a first clone of `src` in it. */
async function kept(src: string) {
  const cache = tempDir('holon-ca-');
  const first = await freshClone(src);
  const r = await frontier(first, { HOLON_CACHE_DIR: cache });
  expect(r.evaluated).toBe(true);
  expect(r.restored).toBe(false);
  expect(answers(cache)).toHaveLength(1);
  return { cache, file: join(cache, answers(cache)[0]), first };
}

describe('the machine answers by content', () => {
  it('a fresh clone restores the answer a first clone evaluated, and answers as a full evaluation, then and after every change', async () => {
    // Enough items that the default answer's cap leaves some out (its .cut file).
    const { dir } = await origin({ n: 400 });
    const { cache, first } = await kept(dir);
    const c = await freshClone(dir);
    const env = { HOLON_CACHE_DIR: cache };
    const r = await frontier(c, env);
    expect(r.restored, r.stderr).toBe(true);
    expect(r.evaluated).toBe(false);
    expect(r.json).toEqual(await full(c));
    // Restored as the evaluation leaves it: the snapshot and the answer's indexes are there.
    const answerFiles = (d: string) => readdirSync(join(d, '.holon/local/cache')).filter((f) => /^(graph-main\.idx|frontier-main-all\.)/.test(f)).sort();
    expect(answerFiles(c)).toEqual(answerFiles(first));
    expect(answerFiles(c)).toEqual(['frontier-main-all.cut', 'frontier-main-all.dep', 'frontier-main-all.json', 'frontier-main-all.tix', 'frontier-main-all.txt', 'graph-main.idx']);
    // Byte for byte what the evaluation wrote, but for each file's token or lineage line.
    const body = (d: string, f: string) => {
      const b = readFileSync(join(d, '.holon/local/cache', f));
      return b.subarray(b.indexOf(10) + 1);
    };
    for (const f of ['frontier-main-all.cut', 'frontier-main-all.dep', 'frontier-main-all.tix', 'frontier-main-all.txt']) expect(body(c, f).equals(body(first, f)), f).toBe(true);
    // The snapshot: the same names and hashes; the numbers are each clone's own.
    const snap = (d: string) => {
      const path = join(d, '.holon/local/cache/graph-main.idx');
      // Under the stamp of the build that wrote it (the tests' own import of src has another build id).
      const head = readFileSync(path);
      return readStatIndex(path, head.toString('utf8', FIXED, FIXED + head.readUInt32LE(12)))!;
    };
    const [a, b] = [snap(first), snap(c)];
    expect(b.names).toBe(a.names);
    for (const k of ['hashes', 'titles', 'prios', 'sums'] as const) expect(Array.from(b[k]), k).toEqual(Array.from(a[k]));
    // The next call reuses it from local/ (by its digest: the clone's files are too new for their keys, see RACY_MS).
    const again = await frontier(c, env);
    expect(again.stderr).toMatch(/frontier: reused \((no file changed|same digest, same titles)\)/);
    expect(again.json).toEqual(r.json);

    const ok = async (...args: string[]) => {
      const res = await holon(args, { cwd: c, env: { HOLON_NOW: NOW, ...env } });
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
      return res;
    };
    /** The frontier after a change: what the trace says it did, and always the full evaluation. */
    const after = async (path: RegExp) => {
      const f = await frontier(c, env);
      expect(f.stderr).toMatch(path);
      expect(f.restored).toBe(false);
      expect(f.json).toEqual(await full(c));
      return f.json;
    };
    const shown = r.json.runnable[3].id as string;
    await ok('progress', shown, 'a note');
    await after(/frontier: reused \(same digest/);
    // The title index restored: a new title is patched in, not evaluated.
    await ok('edit', shown, '--title', 'a new title');
    expect((await after(/frontier: reused with 1 entry patched/)).runnable.map((e: { title: string }) => e.title)).toContain('a new title');
    await ok('edit', shown, '--priority', 'P4');
    await after(/frontier: reused with 1 entry patched/);
    // The read index restored: a complete is patched in, not evaluated.
    const top = (await full(c)).runnable[0].id as string;
    await ok('complete', top, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    await after(/frontier: patched/);
    // A hand edit, not committed.
    const other = (await full(c)).runnable[1].id as string;
    writeFileSync(workFile(c, other), readFileSync(workFile(c, other), 'utf8').replace('status: "open"', 'status: "done"'));
    await after(/frontier: (patched|evaluated)/);
    // A pick claims what a full evaluation puts first.
    const firstNow = (await full(c)).runnable[0].id as string;
    expect((await ok('pick', '--json')).stdout).toContain(firstNow);
    await after(/frontier: (patched|reused|evaluated)/);
  });

  it('a fresh clone of a state a few files from the kept one restores it as a local/ before a pull, and answers as a full evaluation', { timeout: 120_000 }, async () => {
    const { dir, ids } = await origin({ n: 400 });
    const { cache } = await kept(dir);
    const env = { HOLON_CACHE_DIR: cache };
    const work = (d: string, id: string) => workFile(d, id);
    const change = (id: string, from: string, to: string) => {
      const text = readFileSync(work(dir, id), 'utf8');
      expect(text).toContain(from);
      writeFileSync(work(dir, id), text.replace(from, to));
    };
    const commit = (m: string) => {
      git(dir, 'add', '-A');
      git(dir, 'commit', '-qm', m);
    };
    const after = async (changed: number, path: RegExp) => {
      const c = await freshClone(dir);
      // Past RACY_MS (real time, as the listing's clock is): a file the clone wrote within 2 s is read
      // again whatever the snapshot says, and would hide a changed file not marked as such.
      await sleep(2100);
      const r = await frontier(c, env);
      expect(r.stderr).toContain(`${RESTORED}, ${changed} file${changed === 1 ? '' : 's'} changed since`);
      expect(r.stderr).toMatch(path);
      expect(r.json).toEqual(await full(c));
      // And the next call, by its file keys where they hold: the same.
      const again = await frontier(c, env);
      expect(again.json).toEqual(r.json);
      return c;
    };
    const shown = (await full(await freshClone(dir))).runnable;
    // A progress note (the same digest), then a new title (a title patch), each a commit after the kept state.
    writeFileSync(work(dir, shown[0].id), `${readFileSync(work(dir, shown[0].id), 'utf8')}- a note from another clone\n`);
    commit('a note');
    await after(1, /frontier: reused \(same digest/);
    change(shown[1].id, `title: "${shown[1].title}"`, 'title: "retitled elsewhere"');
    commit('a title');
    await after(2, /frontier: reused with 1 entry patched/);
    // An item done (a verdict patch from the restored read index).
    change(shown[2].id, 'status: "open"', 'status: "done"');
    commit('done');
    const c = await after(3, /frontier: patched/);
    // The clone goes on from there as any home does.
    const top = (await full(c)).runnable[0].id as string;
    expect((await holon(['complete', top, '--result', 'r', '--evidence', 'e', '--no-followup', 'none'], { cwd: c, env: { HOLON_NOW: NOW, ...env } })).code).toBe(0);
    const next = await frontier(c, env);
    expect(next.json).toEqual(await full(c));
    // A new dependency: past what a patch does, so the restored state is evaluated, and that answer kept.
    change(ids[10], 'revision: 1\n', `revision: 1\ndepends_on:\n  - "${ids[12]}"\n`);
    commit('a dependency');
    await after(4, /frontier: evaluated/);
    expect((await frontier(await freshClone(dir), env)).stderr).toContain(`${RESTORED}\n`);
    /** Committed as `m`, a fresh clone is not restored but evaluated, as a full evaluation. */
    const evaluatedAfter = async (m: string) => {
      commit(m);
      const c = await freshClone(dir);
      const r = await frontier(c, env);
      expect(r.restored, m).toBe(false);
      expect(r.evaluated, m).toBe(true);
      expect(r.json).toEqual(await full(c));
    };
    // A file come or gone: other names, nothing restored; that evaluation keeps its own state.
    git(dir, 'rm', '-q', work(dir, ids[5]));
    await evaluatedAfter('gone');
    const same = await frontier(await freshClone(dir), env);
    expect(same.stderr).toContain(`${RESTORED}\n`);
    // Past an eighth of the files of another blob (MOVED_MAX): not restored, evaluated.
    for (const id of ids.slice(20, 80)) if (id !== ids[5]) writeFileSync(work(dir, id), `${readFileSync(work(dir, id), 'utf8')}- a note\n`);
    await evaluatedAfter('many notes');
  });

  it('a kept answer whose header cannot be checked (of this key, written by no holon) is evaluated, not an error', async () => {
    const { dir } = await origin();
    const { cache, file } = await kept(dir);
    const bytes = readFileSync(file);
    const nl = bytes.indexOf(10);
    const head = JSON.parse(bytes.toString('utf8', 0, nl));
    head.header.events = null;
    writeFileSync(file, Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`), bytes.subarray(nl + 1)]));
    const c = await freshClone(dir);
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.restored).toBe(false);
    expect(r.evaluated).toBe(true);
    expect(r.json).toEqual(await full(c));
  });

  it('a pick as the first command of a fresh clone claims what a full evaluation puts first', async () => {
    const { dir } = await origin();
    const { cache } = await kept(dir);
    const c = await freshClone(dir);
    const first = (await full(c)).runnable[0].id as string;
    const res = await holon(['pick', '--json'], { cwd: c, env: { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1', HOLON_CACHE_DIR: cache } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(RESTORED);
    expect(res.stdout).toContain(first);
    const f = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(f.json).toEqual(await full(c));
  });

  it('evaluates where the key or the answer\'s header does not hold: a file not committed, an index with stale numbers, another holder, a clock past its window', async () => {
    const { dir, ids } = await origin();
    const { cache } = await kept(dir);
    const env = { HOLON_CACHE_DIR: cache };
    const expectEvaluated = async (c: string, e: NodeJS.ProcessEnv = {}) => {
      const r = await frontier(c, { ...env, ...e });
      expect(r.restored, r.stderr).toBe(false);
      expect(r.evaluated).toBe(true);
      expect(r.json).toEqual(await full(c, e));
      return r;
    };
    // A record changed and not committed: git vouches for it no more, so there is no key. So for a
    // copied folder: git's index holds the numbers of the files copied from, and vouches for nothing.
    const edited = await freshClone(dir);
    writeFileSync(workFile(edited, ids[1]), readFileSync(workFile(edited, ids[1]), 'utf8').replace('title: "item 1"', 'title: "edited"'));
    const r = await expectEvaluated(edited);
    expect(JSON.stringify(r.json)).toContain('edited');
    // (Neither it nor the copy below has a key, so neither keeps an answer: a clone of the state kept still restores.)
    const copy = join(tempDir(), 'copy');
    cpSync(await freshClone(dir), copy, { recursive: true });
    await expectEvaluated(copy);
    const ok = await frontier(await freshClone(dir), env);
    expect(ok.restored, ok.stderr).toBe(true);
    // Each of these evaluates, and keeps its answer in place of the last one (one is kept a repository and agent).
    // Another holder: another key.
    await expectEvaluated(await freshClone(dir), { HOLON_ACTOR: 'agent:other' });
    // Past 06:30 a lease of writeGraph's has ended: the kept answer's window is over.
    await expectEvaluated(await freshClone(dir), { HOLON_NOW: '2026-11-30T06:45:00Z' });
  });

  it('a kept file torn or of another key costs the evaluation, which keeps its answer again', async () => {
    const { dir, ids } = await origin();
    const { cache, file } = await kept(dir);
    const env = { HOLON_CACHE_DIR: cache };
    truncateSync(file, readFileSync(file).length - 100);
    const torn = await freshClone(dir);
    const r = await frontier(torn, env);
    expect(r.restored).toBe(false);
    expect(r.json).toEqual(await full(torn));
    const again = await frontier(await freshClone(dir), env);
    expect(again.restored, again.stderr).toBe(true);
    // Another state of the repository, with other names (a record more): evaluated, and its answer
    // replaces the kept one.
    writeFileSync(workFile(dir, `${ids[2]}x`), readFileSync(workFile(dir, ids[2]), 'utf8').replace(`id: "${ids[2]}"`, `id: "${ids[2]}x"`));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'a record more');
    const next = await freshClone(dir);
    const n = await frontier(next, env);
    expect(n.restored).toBe(false);
    expect(n.evaluated).toBe(true);
    expect(n.json).toEqual(await full(next));
    expect((await frontier(await freshClone(dir), env)).stderr).toContain(`${RESTORED}\n`);
  });

  it('a home whose caches cannot be written, or a machine cache that cannot be, evaluates and says nothing', async () => {
    const { dir } = await origin();
    const { cache } = await kept(dir);
    // Every write under local/ fails (its tmp folder is a file): nothing restored, the evaluation printed.
    const c = await freshClone(dir);
    mkdirSync(join(c, '.holon/local'), { recursive: true });
    writeFileSync(join(c, '.holon/local/tmp'), '');
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.restored).toBe(false);
    expect(r.json).toEqual(await full(c));
    // A machine cache folder that is a file: no answer kept, no error.
    const file = join(tempDir(), 'not-a-folder');
    writeFileSync(file, '');
    const d = await freshClone(dir);
    const e = await frontier(d, { HOLON_CACHE_DIR: file });
    expect(e.evaluated).toBe(true);
    expect(e.json).toEqual(await full(d));
  });

  it('keeps no answer that is the checkout\'s own: one with a record problem, one that read the checkout (an item asks for a branch), one that asked git how a recorded commit relates to HEAD', async () => {
    // Evidence recorded at the first commit, and a commit after it: HEAD has moved past it, which a
    // shallow clone of the same state could not tell.
    const evidence = await origin();
    const first = git(evidence.dir, 'rev-parse', 'HEAD').trim();
    const res = await holon(['evidence', evidence.ids[1], 'tests pass', '--commit', first], { cwd: evidence.dir, env: { HOLON_NOW: NOW } });
    expect(res.code, res.stderr).toBe(0);
    git(evidence.dir, 'add', '-A');
    git(evidence.dir, 'commit', '-qm', 'evidence');
    for (const o of [
      await origin({ edit: (work) => writeFileSync(join(work, 'w-broken.md'), '---\nid: [\n---\n') }),
      await origin({ branch: true }),
      evidence,
    ]) {
      const cache = tempDir('holon-ca-');
      const c = await freshClone(o.dir);
      const r = await frontier(c, { HOLON_CACHE_DIR: cache });
      expect(r.evaluated).toBe(true);
      expect(answers(cache)).toEqual([]);
    }
  });
});
