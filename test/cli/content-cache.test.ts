import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, tempDir } from '../helpers/cli.js';
import { freshClone, git, withoutLocal } from '../helpers/clones.js';
import { graphProject } from '../helpers/graph.js';

/**
 * The machine's content cache (store/content-cache.ts, store/git-index.ts): a fresh clone (no local/)
 * takes the graph entries of the files git's index vouches for from a cache keyed by blob id, and its
 * frontier is always the one a full evaluation gives (no local/, no content cache: HOLON_CACHE_DIR=off,
 * the tests' default, test/helpers/cli.ts). Each test gives the cache a temp folder of its own.
 */

const NOW = '2026-11-30T06:00:00Z';
const N = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A home of N items committed to git. */
async function origin() {
  const { p, ids } = await graphProject(N);
  return { dir: p.dir, ids };
}

/** A fresh clone (helpers/clones.ts). */

const fresh = (dir: string) => rmSync(join(dir, '.holon/local'), { recursive: true, force: true });
const workFile = (dir: string, id: string) => join(dir, '.holon/agents/main/work', `${id}.md`);

/** `frontier --json --all` with the trace; `cc` is what the content cache line says (null: none). */
async function frontier(dir: string, env: NodeJS.ProcessEnv = {}) {
  const r = await holon(['frontier', '--json', '--all'], { cwd: dir, env: { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1', ...env } });
  expect(r.code, r.stderr).toBe(0);
  const m = /main: content cache, (\d+) of (\d+) taken, (\d+) learned/.exec(r.stderr);
  const none = /main: no content cache \(([^)]*)\)/.exec(r.stderr);
  return { json: JSON.parse(r.stdout), cc: m ? { taken: Number(m[1]), of: Number(m[2]), learned: Number(m[3]) } : null, none: none?.[1] ?? null, stderr: r.stderr };
}

/** The full evaluation of the same checkout: no local/, no content cache; local/ is put back after. */
const full = (dir: string) =>
  withoutLocal(dir, async () => {
    const r = await frontier(dir);
    expect(r.cc).toBeNull();
    return r.json;
  });

const verdict = (f: any, id: string) => {
  for (const c of ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable']) {
    const e = f[c].find((x: any) => x.id === id);
    if (e) return `${c}:${e.code}`;
  }
  return 'closed';
};

/** A content cache warmed by a first clone of `src`. */
async function warmCache(src: string) {
  const cache = tempDir('holon-cc-');
  const first = await freshClone(src);
  const r = await frontier(first, { HOLON_CACHE_DIR: cache });
  expect(r.cc).toEqual({ taken: 0, of: N, learned: N });
  const files = readdirSync(cache).filter((f) => f.startsWith('content-'));
  expect(files).toHaveLength(1);
  return { cache, file: join(cache, files[0]) };
}

/** A content cache file as holon writes it: JSON, its head on the first line, then one entry a line. */
function writeCacheFile(file: string, c: { version: number; build: string; entries: Record<string, unknown> }): void {
  const lines = Object.entries(c.entries).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  writeFileSync(file, `{"version":${c.version},"build":${JSON.stringify(c.build)},"entries":{\n${lines.join(',\n')}\n}}\n`);
}

describe('the machine content cache', () => {
  it('a fresh clone takes every file git vouches for from it, and answers as a full evaluation; its next command uses local/', async () => {
    const { dir } = await origin();
    const { cache, file } = await warmCache(dir);
    const before = readFileSync(file, 'utf8');
    const c = await freshClone(dir);
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.cc).toEqual({ taken: N, of: N, learned: 0 });
    expect(r.json).toEqual(await full(c));
    expect(r.json.counts.total).toBe(N);
    // Nothing learned: the cache is not written again.
    expect(readFileSync(file, 'utf8')).toBe(before);
    // With local/ in place the graph cache answers; the content cache is not asked.
    const again = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(again.cc).toBeNull();
    expect(again.json).toEqual(r.json);
  });

  it('finds each listed file among git\'s entries in order: files git has and the folder lacks, files it lacks, and other paths are passed over', async () => {
    const { dir, ids } = await origin();
    // Other paths in and beside the work folder, tracked: not records.
    const work = join(dir, '.holon/agents/main/work');
    writeFileSync(join(work, 'notes.txt'), 'not a record\n');
    mkdirSync(join(work, 'old'));
    writeFileSync(join(work, 'old', `${ids[3]}.md`), readFileSync(join(work, `${ids[3]}.md`)));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'other paths');
    const { cache } = await warmCache(dir);
    const c = await freshClone(dir);
    // One record gone from the folder (still in git's index), one new between two others (in none).
    rmSync(workFile(c, ids[20]));
    const added = `${ids[10]}0`;
    expect(added > ids[10] && added < ids[11]).toBe(true);
    writeFileSync(workFile(c, added), readFileSync(workFile(c, ids[10]), 'utf8').replace(`id: "${ids[10]}"`, `id: "${added}"`));
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.cc).toEqual({ taken: N - 1, of: N, learned: 0 });
    expect(r.json).toEqual(await full(c));
    expect(verdict(r.json, added)).toBe(verdict(r.json, ids[10]));
  });

  it('a fresh clone whose every entry is taken writes no graph cache; the next full evaluation adopts again and writes it, with the same answer', async () => {
    const { dir, ids } = await origin();
    const { cache } = await warmCache(dir);
    const c = await freshClone(dir);
    const graphCache = join(c, '.holon/local/cache/graph-main.json');
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.cc).toEqual({ taken: N, of: N, learned: 0 });
    expect(r.stderr).toContain('main: graph cache not written (every entry from the content cache)');
    expect(existsSync(graphCache)).toBe(false);
    // The next call needs no graph: the snapshot and the answer.
    const again = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(again.cc).toBeNull();
    expect(again.json).toEqual(r.json);
    // A progress note (the snapshot's digest holds) and then a change only an evaluation answers
    // (no cached answer): the graph is loaded, from the content cache again, and now written.
    expect((await holon(['progress', ids[0], 'a note'], { cwd: c, env: { HOLON_NOW: NOW, HOLON_CACHE_DIR: cache } })).code).toBe(0);
    for (const f of readdirSync(join(c, '.holon/local/cache'))) if (f.startsWith('frontier-main-')) rmSync(join(c, '.holon/local/cache', f));
    const third = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(third.cc).toEqual({ taken: N - 1, of: N, learned: 0 });
    expect(third.stderr).not.toContain('graph cache not written');
    expect(existsSync(graphCache)).toBe(true);
    expect(third.json).toEqual(await full(c));
    // And the graph cache answers the one after (no content cache asked), alike.
    for (const f of readdirSync(join(c, '.holon/local/cache'))) if (f.startsWith('frontier-main-')) rmSync(join(c, '.holon/local/cache', f));
    const fourth = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(fourth.cc).toBeNull();
    expect(fourth.json).toEqual(third.json);
  });

  it('a fresh clone with a few files git cannot vouch for parses them and still writes no graph cache; the next full evaluation parses them again', async () => {
    const { dir, ids } = await origin();
    const { cache } = await warmCache(dir);
    const c = await freshClone(dir);
    const graphCache = join(c, '.holon/local/cache/graph-main.json');
    // Records changed and not committed: one with a line more, one closed (its verdict moves).
    writeFileSync(workFile(c, ids[N - 1]), readFileSync(workFile(c, ids[N - 1]), 'utf8') + '\nA line.\n');
    const open = (await full(c)).runnable[0].id as string;
    writeFileSync(workFile(c, open), readFileSync(workFile(c, open), 'utf8').replace('status: "open"', 'status: "done"'));
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.cc).toEqual({ taken: N - 2, of: N, learned: 0 });
    expect(r.stderr).toContain(`main: graph cache not written (${N - 2} of ${N} entries from the content cache)`);
    expect(existsSync(graphCache)).toBe(false);
    expect(verdict(r.json, open)).toBe('closed');
    expect(r.json).toEqual(await full(c));
    // An evaluation again (no cached answer): the two files parsed once more, and the graph cache written now.
    for (const f of readdirSync(join(c, '.holon/local/cache'))) if (f.startsWith('frontier-main-')) rmSync(join(c, '.holon/local/cache', f));
    const again = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(again.cc).toEqual({ taken: N - 2, of: N, learned: 0 });
    expect(again.stderr).not.toContain('graph cache not written');
    expect(existsSync(graphCache)).toBe(true);
    expect(again.json).toEqual(r.json);
  });

  it('a fresh clone with more files git cannot vouch for than a first load parses and defers writes the graph cache at once', async () => {
    const { dir, ids } = await origin();
    const { cache } = await warmCache(dir);
    const c = await freshClone(dir);
    // graph-index.ts DEFER_PARSES: 32 at N = 40 files.
    for (const id of ids.slice(0, 33)) writeFileSync(workFile(c, id), readFileSync(workFile(c, id), 'utf8') + '\nA line.\n');
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.cc).toEqual({ taken: N - 33, of: N, learned: 0 });
    expect(r.stderr).not.toContain('graph cache not written');
    expect(existsSync(join(c, '.holon/local/cache/graph-main.json'))).toBe(true);
    expect(r.json).toEqual(await full(c));
    // The graph cache it wrote answers the next evaluation (no content cache asked), alike.
    for (const f of readdirSync(join(c, '.holon/local/cache'))) if (f.startsWith('frontier-main-')) rmSync(join(c, '.holon/local/cache', f));
    const again = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(again.cc).toBeNull();
    expect(again.json).toEqual(r.json);
  });

  it('never keeps a problem (it names its file, which is the checkout\'s): each clone reports its own path', async () => {
    const { dir } = await origin();
    writeFileSync(workFile(dir, 'w-bad00001'), '---\nid: "w-bad00001"\ntitle: "bad"\nagent: "main"\nstatus: "bogus"\nclass: "advancement_task"\npriority: "P1"\ncreated_at: "2026-11-01T00:00:00Z"\nrevision: 1\n---\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'a bad record');
    const cache = tempDir('holon-cc-');
    for (const [i, learned, taken] of [[0, N, 0], [1, 0, N]]) {
      const c = await freshClone(dir);
      const r = await frontier(c, { HOLON_CACHE_DIR: cache });
      // The bad record is parsed every time: its entry is never written, and no clone learns it.
      expect(r.cc, `clone ${i}`).toEqual({ taken, of: N + 1, learned });
      expect(r.json.problems.map((p: any) => p.file)).toEqual([workFile(c, 'w-bad00001')]);
      expect(r.json).toEqual(await full(c));
    }
  });

  it('a file edited after the clone (same size, same mtime) is parsed, not taken: its ctime is not what git recorded', async () => {
    const { dir, ids } = await origin();
    const { cache } = await warmCache(dir);
    const c = await freshClone(dir);
    // An open item whose file gets a whole-second mtime that git records (refresh), so that it can be
    // restored exactly after an edit.
    const before = await full(c);
    const id = before.runnable[0].id as string;
    expect(ids).toContain(id);
    const f = workFile(c, id);
    utimesSync(f, 1_796_000_000, 1_796_000_000);
    await sleep(30);
    git(c, 'update-index', '--refresh');
    await sleep(30);
    const text = readFileSync(f, 'utf8');
    const edited = text.replace('status: "open"', 'status: "done"');
    expect(edited.length).toBe(text.length);
    const ino = statSync(f).ino;
    writeFileSync(f, edited);
    utimesSync(f, 1_796_000_000, 1_796_000_000);
    expect(statSync(f).ino).toBe(ino);
    expect(statSync(f).mtimeMs).toBe(1_796_000_000_000);
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.cc).toEqual({ taken: N - 1, of: N, learned: 0 });
    expect(verdict(r.json, id)).toBe('closed');
    expect(r.json).toEqual(await full(c));
    // The edited text is not its blob's: nothing was learned from it, so another clone still takes
    // (or parses) the original.
    const other = await freshClone(dir);
    fresh(other);
    const o = await frontier(other, { HOLON_CACHE_DIR: cache });
    expect(o.cc).toEqual({ taken: N, of: N, learned: 0 });
    expect(verdict(o.json, id)).toBe(verdict(before, id));
    expect(verdict(before, id)).toMatch(/^runnable/);
    expect(o.json).toEqual(before);
  });

  it('vouches for nothing that is racily clean: files not older than the index file are parsed', async () => {
    const { dir } = await origin();
    const { cache } = await warmCache(dir);
    const c = await freshClone(dir);
    // The index as old as the files' own times: git cannot tell a change in that instant, nor can holon.
    const oldest = Math.min(...readdirSync(join(c, '.holon/agents/main/work')).filter((n) => n.endsWith('.md')).map((n) => statSync(join(c, '.holon/agents/main/work', n)).mtimeMs));
    utimesSync(join(c, '.git/index'), oldest / 1000 - 1, oldest / 1000 - 1);
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    // (Nothing learned either: git vouches for no file's blob.)
    expect(r.cc).toEqual({ taken: 0, of: N, learned: 0 });
    expect(r.json).toEqual(await full(c));
  });

  it('takes an entry only for its own blob: entries swapped between names in the cache are parsed', async () => {
    const { dir } = await origin();
    const { cache, file } = await warmCache(dir);
    const c = await freshClone(dir);
    const before = await full(c);
    // An open item and a done one: their entries swapped (names kept) would swap their verdicts.
    const open = before.runnable[0].id as string;
    const done = readdirSync(join(c, '.holon/agents/main/work')).filter((n) => n.endsWith('.md')).map((n) => n.slice(0, -3)).find((id) => verdict(before, id) === 'closed')!;
    const cached = JSON.parse(readFileSync(file, 'utf8'));
    const [a, b] = [`${open}.md`, `${done}.md`];
    [cached.entries[a], cached.entries[b]] = [cached.entries[b], cached.entries[a]];
    writeCacheFile(file, cached);
    const r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.cc).toEqual({ taken: N - 2, of: N, learned: 2 });
    expect(r.json).toEqual(before);
  });

  it('a torn, foreign-build or unwritable cache costs parses, never an error or a wrong answer', async () => {
    const { dir } = await origin();
    const { cache, file } = await warmCache(dir);
    const good = readFileSync(file, 'utf8');
    const c = await freshClone(dir);
    const expected = await full(c);

    writeFileSync(file, good.slice(0, good.length >> 1));
    let r = await frontier(c, { HOLON_CACHE_DIR: cache });
  expect(r.cc).toEqual({ taken: 0, of: N, learned: N });
    expect(r.json).toEqual(expected);
    // Learned again: written whole.
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).entries)).toHaveLength(N);

    fresh(c);
    writeFileSync(file, good.replace(/"build":"[^"]*"/, '"build":"13/0.0.0/another"'));
    r = await frontier(c, { HOLON_CACHE_DIR: cache });
  expect(r.cc).toEqual({ taken: 0, of: N, learned: N });
    expect(r.json).toEqual(expected);

    // Entries of the right build but not of an entry's shape.
    fresh(c);
    const odd = JSON.parse(good);
    // (Half with no slim, half with a hash that is no number.)
    Object.keys(odd.entries).forEach((k, i) => {
      const [blob, slim, , hash] = odd.entries[k];
      odd.entries[k] = i % 2 ? [blob, 5, 0, hash, 0] : [blob, slim, 0, 'x', 0];
    });
    writeCacheFile(file, odd);
    r = await frontier(c, { HOLON_CACHE_DIR: cache });
  expect(r.cc).toEqual({ taken: 0, of: N, learned: N });
    expect(r.json).toEqual(expected);

    // An entry keyed like the file's stat key instead of a blob (as no holon writes it): no hit either.
    fresh(c);
    const forged = JSON.parse(good);
    const open = expected.runnable[0].id as string;
    const st = statSync(workFile(c, open));
    const doneEntry = Object.values(forged.entries).find((e: any) => e[1] === 'D') as unknown[];
    forged.entries[`${open}.md`] = [`${st.ino}:${st.size}:${Math.round(st.mtimeMs * 1000)}:${Math.round(st.ctimeMs * 1000)}`, ...doneEntry.slice(1)];
    writeCacheFile(file, forged);
    r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.json).toEqual(expected);

    // A cache folder that cannot be made (a file is in the way): nothing written, nothing fails.
    fresh(c);
    const blocked = join(tempDir(), 'file');
    writeFileSync(blocked, '');
    r = await frontier(c, { HOLON_CACHE_DIR: join(blocked, 'cache') });
  expect(r.cc).toEqual({ taken: 0, of: N, learned: N });
    expect(r.stderr).not.toMatch(/error|ENOTDIR/i);
    expect(r.json).toEqual(expected);
  });

  it('reads index versions 2, 3 (skip-worktree) and 4 and a linked worktree; a split index or GIT_DIR gives no answer', async () => {
    const { dir, ids } = await origin();
    const { cache } = await warmCache(dir);
    const take = async (c: string, taken: number) => {
      fresh(c);
      const r = await frontier(c, { HOLON_CACHE_DIR: cache });
      // A file git does not vouch for is parsed, and not learned: the cache does not name its blob.
      expect(r.cc).toEqual({ taken, of: N, learned: 0 });
      expect(r.json).toEqual(await full(c));
      return r;
    };
    const c = await freshClone(dir);
    expect(readFileSync(join(c, '.git/index')).readUInt32BE(4)).toBe(2);
    await take(c, N);

    git(c, 'update-index', '--index-version', '4');
    expect(readFileSync(join(c, '.git/index')).readUInt32BE(4)).toBe(4);
    await take(c, N);

    // skip-worktree (an extended flag: version 3): git says nothing of that file's content.
    git(c, 'update-index', '--index-version', '2');
    git(c, 'update-index', '--skip-worktree', `.holon/agents/main/work/${ids[1]}.md`);
    expect(readFileSync(join(c, '.git/index')).readUInt32BE(4)).toBe(3);
    await take(c, N - 1);
    git(c, 'update-index', '--no-skip-worktree', `.holon/agents/main/work/${ids[1]}.md`);

    // A split index keeps entries in a second file: not read at all.
    git(c, 'update-index', '--split-index');
    fresh(c);
    let r = await frontier(c, { HOLON_CACHE_DIR: cache });
    expect(r.cc).toBeNull();
    expect(r.none).toMatch(/git index/);
    expect(r.json).toEqual(await full(c));
    git(c, 'update-index', '--no-split-index');

    // GIT_DIR set: git's index may be another checkout's.
    fresh(c);
    r = await frontier(c, { HOLON_CACHE_DIR: cache, GIT_DIR: join(c, '.git') });
    expect(r.cc).toBeNull();
    expect(r.json).toEqual(await full(c));

    // A linked worktree: `.git` is a file; its index is its own.
    const wt = join(tempDir(), 'wt');
    git(c, 'worktree', 'add', '-q', '-b', 'other', wt);
    await sleep(30);
    git(wt, 'update-index', '--force-write-index');
    await take(wt, N);
  });
});
