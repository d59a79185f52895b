import { appendFileSync, linkSync, lstatSync, mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fastStatInUse, isRegular, isSymlink, lstatNumbers, resetFastStat, statNumbers } from '../../src/store/fast-stat.js';
import { tempDir } from '../helpers/cli.js';

/**
 * The listings' stat (store/fast-stat.ts) reads node's fs binding where it proves to give lstatSync's
 * numbers: every number a listing stores must be the one a Stats object gives, bit for bit, or a file
 * stat'ed one way would look changed (or, worse, unchanged) to a call that stat'ed it the other way.
 */
const numbersOf = (s: ReturnType<typeof lstatSync>) => s && { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, nlink: s.nlink, mode: s.mode };

function files() {
  const dir = tempDir('holon-fast-stat-');
  const file = join(dir, 'w-a.md');
  writeFileSync(file, 'x');
  appendFileSync(file, 'y');
  // A time with a fraction of a millisecond: the conversion must round as node's does.
  utimesSync(file, 1764487200.123456, 1764487200.987654);
  const link = join(dir, 'w-link.md');
  symlinkSync(file, link);
  const dangling = join(dir, 'w-gone.md');
  symlinkSync(join(dir, 'nowhere'), dangling);
  const hard = join(dir, 'w-hard.md');
  linkSync(file, hard);
  const sub = join(dir, 'folder.md');
  mkdirSync(sub);
  return { dir, file, link, dangling, hard, sub, missing: join(dir, 'w-missing.md') };
}

describe('lstatNumbers / statNumbers', () => {
  afterEach(() => {
    delete process.env.HOLON_FAST_STAT;
    resetFastStat();
  });

  for (const fast of ['1', '0']) {
    it(`give lstatSync's and statSync's numbers for files, links, folders and missing names (HOLON_FAST_STAT=${fast})`, () => {
      process.env.HOLON_FAST_STAT = fast;
      resetFastStat();
      const f = files();
      for (const p of [f.file, f.link, f.dangling, f.hard, f.sub, f.missing]) {
        expect(lstatNumbers(p), p).toEqual(numbersOf(lstatSync(p, { throwIfNoEntry: false })!) ?? null);
        expect(statNumbers(p), p).toEqual(numbersOf(statSync(p, { throwIfNoEntry: false })!) ?? null);
      }
      expect(isRegular(lstatNumbers(f.file)!)).toBe(true);
      expect(isSymlink(lstatNumbers(f.link)!)).toBe(true);
      expect(isRegular(lstatNumbers(f.sub)!)).toBe(false);
      expect(lstatNumbers(f.hard)!.nlink).toBe(2);
    });
  }

  it('throws what lstatSync throws for an error other than a missing file', () => {
    const f = files();
    const under = join(f.file, 'inside.md');
    let want = '';
    try {
      lstatSync(under);
    } catch (err) {
      want = (err as NodeJS.ErrnoException).code!;
    }
    expect(want).toBe('ENOTDIR');
    expect(() => lstatNumbers(under)).toThrow(expect.objectContaining({ code: want }));
  });

  it('reads the binding on this node, and says no deprecation warning for it, even under --pending-deprecation or --throw-deprecation; --no-deprecation (a read-only process.noDeprecation) is no error', () => {
    resetFastStat();
    lstatNumbers(files().file);
    // Where this fails, node's fs binding changed: holon still works (lstatSync), only slower.
    expect(fastStatInUse()).toBe(true);
    const dist = pathToFileURL(fileURLToPath(new URL('../../dist/store/fast-stat.js', import.meta.url))).href;
    for (const flag of ['--pending-deprecation', '--throw-deprecation', '--no-deprecation']) {
      const r = spawnSync(process.execPath, [flag, '--pending-deprecation', '--input-type=module', '-e', `import { lstatNumbers, fastStatInUse } from ${JSON.stringify(dist)}; lstatNumbers('.'); await new Promise((r) => setTimeout(r, 50)); console.log(fastStatInUse());`], { encoding: 'utf8' });
      expect(r.stderr, flag).toBe('');
      expect(r.stdout.trim(), flag).toBe('true');
    }
  });

  /** Runs `f` with process.binding('fs') replaced by what `wrap` makes of the real one. */
  const withBinding = (wrap: (b: any) => object, f: () => void) => {
    const real = (process as any).binding;
    (process as any).binding = (name: string) => (name === 'fs' ? wrap(real.call(process, name)) : real.call(process, name));
    try {
      resetFastStat();
      f();
    } finally {
      (process as any).binding = real;
    }
  };

  it('is not used where the binding gives other numbers, or misses a file it should have thrown for', () => {
    const f = files();
    // Numbers of another file (the root folder) for every path asked.
    withBinding((b) => ({ lstat: (_p: string, ...a: unknown[]) => b.lstat('/', ...a), stat: (_p: string, ...a: unknown[]) => b.stat('/', ...a) }), () => {
      expect(lstatNumbers(f.file)).toEqual(numbersOf(lstatSync(f.file)));
      expect(fastStatInUse()).toBe(false);
    });
    // Right numbers, but every error read as a missing file (what node before 20.11 did with these arguments).
    const swallow = (call: (...a: unknown[]) => unknown) => (...a: unknown[]) => {
      try {
        return call(...a);
      } catch {
        return undefined;
      }
    };
    withBinding((b) => ({ lstat: swallow(b.lstat.bind(b)), stat: swallow(b.stat.bind(b)) }), () => {
      expect(lstatNumbers(f.file)).toEqual(numbersOf(lstatSync(f.file)));
      expect(fastStatInUse()).toBe(false);
    });
    // The real one, through the same wrapping, is proven.
    withBinding((b) => ({ lstat: b.lstat.bind(b), stat: b.stat.bind(b) }), () => {
      expect(lstatNumbers(f.file)).toEqual(numbersOf(lstatSync(f.file)));
      expect(fastStatInUse()).toBe(true);
    });
  });

  it('stays undecided when its first path cannot be stat\'ed, and is proven by the next', () => {
    const f = files();
    expect(() => lstatNumbers(join(f.file, 'inside.md'))).toThrow();
    expect(fastStatInUse()).toBe(undefined);
    lstatNumbers(f.file);
    expect(fastStatInUse()).toBe(true);
  });

  it('is not used with HOLON_FAST_STAT=0', () => {
    process.env.HOLON_FAST_STAT = '0';
    resetFastStat();
    lstatNumbers(files().file);
    expect(fastStatInUse()).toBe(false);
  });
});
