import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, project, ROOT, tempDir } from '../helpers/cli.js';

/**
 * The light commands' bundles run with V8's code cache kept in the machine's cache folder
 * (src/store/code-cache.ts): written after a run that had none or took a path it does not cover,
 * used after, and a cache that does not fit is never used. The tests' default is HOLON_CACHE_DIR=off (test/helpers/cli.ts); each
 * test here gives the cache a temp folder of its own.
 */

const words = () => JSON.parse(readFileSync(join(ROOT, 'dist/bundle/words.json'), 'utf8')) as Record<string, string>;

async function setup() {
  const p = await project();
  const id = await p.create('cached item');
  const cache = tempDir('holon-cc-');
  const run = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = await p.h(args, { HOLON_CACHE_DIR: cache, HOLON_TRACE_INDEX: '1', ...env });
    return { ...r, code_cache: [...r.stderr.matchAll(/code cache: \S+ (\w+)/g)].map((m) => m[1]) };
  };
  const files = () => (existsSync(join(cache, 'code')) ? readdirSync(join(cache, 'code')) : []);
  return { p, id, cache, run, files };
}

describe('the code cache of the light commands', () => {
  it('is written after the first run and used by the next, which prints the same', async () => {
    const { p, id, run, files } = await setup();
    const plain = await p.h(['show', id]);
    const first = await run(['show', id]);
    expect(first.code_cache).toEqual(['missing', 'written']);
    expect(files()).toEqual([`${words().show}.${process.version}-${process.arch}.v8`]);
    const second = await run(['show', id]);
    expect(second.code_cache).toEqual(['used']);
    expect(second.stdout).toBe(plain.stdout);
    expect(first.stdout).toBe(plain.stdout);
    // A frontier's bundle has its own. A run that evaluates turns the optimizer off first (V8's flags
    // change, and data made after would be refused): its data is made before, and used by the next.
    expect((await run(['frontier', '--json'])).code_cache).toEqual(['missing', 'written']);
    expect((await run(['frontier', '--json'])).code_cache).toEqual(['used']);
    rmSync(join(p.dir, '.holon/local'), { recursive: true, force: true });
    expect((await run(['frontier', '--json'])).code_cache).toEqual(['used']);
    expect(files()).toHaveLength(2);
    // The whole CLI (help, heavy commands) has none.
    expect((await run(['help', 'show'])).code_cache).toEqual([]);
  });

  it('is written again by a run that took a path it does not cover, then covers both; the same paths write nothing', async () => {
    const { p, id, run, files, cache } = await setup();
    const header = (word: string) => {
      const file = join(cache, 'code', files().find((f) => f.startsWith(words()[word]))!);
      const bytes = readFileSync(file);
      return { paths: bytes.subarray(0, bytes.indexOf(10)).toString().split(' ').pop()!.split(','), size: bytes.length };
    };
    // progress and on-return share a bundle: each command word is a path.
    expect((await run(['progress', id, 'first note'])).code_cache).toEqual(['missing', 'written']);
    expect(header('progress').paths).toContain('cmd:progress');
    expect(header('progress').paths).not.toContain('cmd:on-return');
    expect((await run(['progress', id, 'second note'])).code_cache).toEqual(['used']);
    const before = header('progress');
    const other = await run(['on-return', id, 'resume at the parser']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.code_cache).toEqual(['used', 'written']);
    const after = header('progress');
    expect(after.paths).toEqual(expect.arrayContaining([...before.paths, 'cmd:on-return']));
    // Made from the code the run had, the cache's and its own: not smaller than what it replaces.
    expect(after.size).toBeGreaterThan(before.size);
    expect((await run(['progress', id, 'third note'])).code_cache).toEqual(['used']);
    expect((await run(['on-return', id, 'resume at the lexer'])).code_cache).toEqual(['used']);
    // Picks: the first evaluates the frontier, a later one patches the answer (a pick claims its item,
    // which changes what the frontier reads). A run writes only what adds a path.
    const patched: string[][] = [];
    let last: string[] = [];
    for (const args of [['pick', id], ['pick'], ['pick'], ['pick']]) {
      const was = files().some((f) => f.startsWith(words().pick)) ? header('pick').paths : [];
      const r = await run(args);
      expect(r.code, r.stderr).toBe(0);
      const now = header('pick').paths;
      if (r.code_cache.includes('written')) expect(now.filter((t) => !was.includes(t))).not.toEqual([]);
      else expect(now).toEqual(was);
      if (r.stderr.includes('frontier: patched')) patched.push(r.code_cache);
      last = r.code_cache;
    }
    expect(header('pick').paths).toContain('verdicts');
    expect(patched[0]).toEqual(['used', 'written']);
    expect(last).toEqual(['used']);
  });

  it('is not used when it does not fit: refused bytes, a bundle file it was not made from; then it is written again', async () => {
    const { id, run, files, cache } = await setup();
    await run(['show', id]);
    const file = join(cache, 'code', files()[0]);
    const good = readFileSync(file);
    const nl = good.indexOf(10);
    // The right header over bytes V8 refuses.
    writeFileSync(file, Buffer.concat([good.subarray(0, nl + 1), Buffer.from('not V8 code data, not at all'.repeat(40))]));
    const refused = await run(['show', id]);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stdout).toContain('cached item');
    expect(refused.code_cache).toEqual(['refused', 'written']);
    expect((await run(['show', id])).code_cache).toEqual(['used']);
    // Made from another file of that name (another inode, size or mtime): not even given to V8.
    writeFileSync(file, Buffer.concat([Buffer.from(good.subarray(0, nl).toString().replace(/ \d+:/, ' 1:')), good.subarray(nl)]));
    expect((await run(['show', id])).code_cache).toEqual(['missing', 'written']);
    // Torn: a header alone.
    writeFileSync(file, good.subarray(0, nl + 1));
    const torn = await run(['show', id]);
    expect(torn.stdout).toContain('cached item');
    expect(torn.code_cache).toEqual(['missing', 'written']);
  });

  it('keeps its folder small when it writes: the 64 files written last, none older than 30 days', async () => {
    const { id, run, files, cache } = await setup();
    const dir = join(cache, 'code');
    mkdirSync(dir, { recursive: true });
    const day = 24 * 3600;
    const now = Date.now() / 1000;
    // 70 caches of older builds' bundles, a minute apart; and one of 40 days ago.
    for (let i = 0; i < 70; i++) {
      writeFileSync(join(dir, `old-${i}.v8`), 'x');
      utimesSync(join(dir, `old-${i}.v8`), now - (i + 1) * 60, now - (i + 1) * 60);
    }
    writeFileSync(join(dir, 'ancient.v8'), 'x');
    utimesSync(join(dir, 'ancient.v8'), now - 40 * day, now - 40 * day);
    expect((await run(['show', id])).code_cache).toEqual(['missing', 'written']);
    const left = files();
    expect(left).toHaveLength(64);
    expect(left).toContain(`${words().show}.${process.version}-${process.arch}.v8`);
    // The newest of the old ones stay.
    expect(left).toEqual(expect.arrayContaining(Array.from({ length: 63 }, (_, i) => `old-${i}.v8`)));
    expect(left).not.toContain('ancient.v8');
  });

  it('is not written by a failed run, nor where the folder cannot be made; off and HOLON_DEBUG do without it', async () => {
    const { id, run, files, cache } = await setup();
    const failed = await run(['show', 'w-nosuchitem']);
    expect(failed.code).not.toBe(0);
    expect(failed.code_cache).toEqual(['missing']);
    expect(files()).toEqual([]);
    // The cache folder is a file: nothing can be written under it, and the command does not mind.
    const blocked = join(tempDir(), 'a-file');
    writeFileSync(blocked, 'x');
    const r = await run(['show', id], { HOLON_CACHE_DIR: blocked });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('cached item');
    expect(r.code_cache).toEqual(['missing']);
    expect((await run(['show', id], { HOLON_CACHE_DIR: 'off' })).code_cache).toEqual([]);
    expect((await run(['show', id], { HOLON_DEBUG: '1' })).code_cache).toEqual([]);
    expect(files()).toEqual([]);
    expect(existsSync(join(cache, 'code'))).toBe(false);
  });

  it('loads a bundle that hands a command it does not hold to the whole CLI (an import, which a vm.Script cannot make itself)', async () => {
    const { p, id, cache } = await setup();
    const w = words();
    // show's bundle defines `list` (same group) but holds only show's handler.
    const script = `const boot = require(${JSON.stringify(join(ROOT, 'dist/bundle/boot.cjs'))});
process.argv = [process.argv[0], 'holon', 'list'];
const loaded = boot.loadBundle(${JSON.stringify(join(ROOT, 'dist/bundle', w.show))});
if (!loaded) throw new Error('not loaded through the code cache');
loaded.exports.main(['list']).then((code) => { process.exitCode = code; });`;
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((res) =>
      execFile(process.execPath, ['-e', script], { cwd: p.dir, env: { ...cleanEnv(), HOLON_AGENT: 'main', HOLON_CACHE_DIR: cache } }, (err, stdout, stderr) =>
        res({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(id);
  });
});
