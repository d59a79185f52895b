import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ancestryCache } from '../../src/store/ancestry-cache.js';
import { DEFAULT_CONFIG, type Home } from '../../src/store/home.js';
import { tempDir } from '../helpers/cli.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' }).trim();

describe('ancestry cache', () => {
  it('remembers answers per repository, carries ancestors forward when HEAD moves on, starts over when it moves back', () => {
    const repo = tempDir();
    git(repo, 'init', '-q', '-b', 'main');
    const commit = (m: string) => (git(repo, 'commit', '-q', '--allow-empty', '-m', m), git(repo, 'rev-parse', 'HEAD'));
    const c1 = commit('c1');
    const c2 = commit('c2');
    const local = join(repo, '.holon', 'local');
    mkdirSync(local, { recursive: true });
    const home: Home = { dir: join(repo, '.holon'), root: repo, local, config: DEFAULT_CONFIG };
    expect(ancestryCache(home, repo).ask(c1, c2)).toBe('ancestor');
    expect(ancestryCache(home, repo).ask(c2, c1)).toBe('other');
    const file = join(local, 'cache', readdirSync(join(local, 'cache')).find((f) => f.startsWith('ancestry-'))!);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ head: c1, ancestors: [], other: [c2] });
    expect(ancestryCache(home, repo).ask(c1, c2)).toBe('ancestor');
    // A remembered answer is used without git: a commit git has never seen, listed by hand, counts.
    const f = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...f, ancestors: [...f.ancestors, 'abcdef1234'] }));
    expect(ancestryCache(home, repo).ask('abcdef1234', c2)).toBe('ancestor');
    // HEAD moves forward: old ancestors and the old HEAD stay ancestors.
    const c3 = commit('c3');
    const cache = ancestryCache(home, repo);
    expect(cache.ask('abcdef1234', c3)).toBe('ancestor');
    expect(JSON.parse(readFileSync(file, 'utf8')).ancestors.sort()).toEqual([c1, 'abcdef1234', c2].sort());
    // HEAD moves back: nothing carries over; git answers again.
    git(repo, 'reset', '-q', '--hard', c1);
    expect(ancestryCache(home, repo).ask('abcdef1234', c1)).toBe('unknown');
    expect(ancestryCache(home, repo).ask(c2, c1)).toBe('other');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ head: c1, ancestors: [], other: [c2] });
  });
});
