import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ancestryOf, readHead, readWorkspace, readWorkspaceGit } from '../../src/store/workspace.js';
import { tempDir } from '../helpers/cli.js';

describe('workspace identity', () => {
  it('reads the .git files exactly as git answers, in checkouts, worktrees and detached HEADs', () => {
    const root = tempDir();
    const repo = join(root, 'app');
    mkdirSync(repo);
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
    const sub = join(repo, 'src/deep');
    mkdirSync(sub, { recursive: true });
    const wt = join(root, 'app-feature');
    git(repo, 'worktree', 'add', '-q', wt, '-b', 'feature');
    const places = [repo, sub, wt, root];
    for (const d of places) expect(readWorkspace(d)).toEqual(readWorkspaceGit(d));
    expect(readWorkspace(wt)).toMatchObject({ git: true, repo: 'app', branch: 'feature', repo_ids: ['app', 'app-feature'], worktree: true });
    expect(readWorkspace(repo)).toMatchObject({ worktree: false });
    expect(readWorkspace(sub)).toMatchObject({ worktree: false });
    // HEAD from the files (loose ref, packed ref, detached) is what git says.
    const head = (d: string) => git(d, 'rev-parse', 'HEAD').toString().trim();
    for (const d of [repo, sub, wt]) expect(readHead(d)).toBe(head(d));
    git(repo, 'pack-refs', '--all');
    for (const d of [repo, wt]) expect(readHead(d)).toBe(head(d));
    expect(readHead(root)).toBeNull();
    const first = head(repo);
    git(repo, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'second');
    expect(readHead(repo)).toBe(head(repo));
    expect(ancestryOf(repo, first, head(repo))).toBe('ancestor');
    expect(ancestryOf(repo, first.slice(0, 8), head(repo))).toBe('ancestor');
    expect(ancestryOf(repo, head(repo), first)).toBe('other');
    expect(ancestryOf(repo, 'deadbeefdeadbeef', head(repo))).toBe('unknown');
    expect(ancestryOf(repo, head(repo).slice(0, 10), head(repo))).toBe('same');
    git(repo, 'remote', 'add', 'origin', 'git@github.com:acme/app.git');
    git(repo, 'checkout', '-q', '--detach');
    for (const d of places) expect(readWorkspace(d)).toEqual(readWorkspaceGit(d));
    expect(readWorkspace(sub)).toMatchObject({ repo: 'acme/app', branch: null });
    expect(readWorkspace(wt).repo_ids).toEqual(['git@github.com:acme/app.git', 'git@github.com:acme/app', 'acme/app', 'app', 'app-feature']);
    expect(readWorkspace(root)).toEqual({ git: false, repo_ids: [], repo: null, branch: null, worktree: false, common: null });
    expect(readWorkspace(wt).common).toBe(realpathSync(join(repo, '.git')));
    expect(readWorkspace(sub).common).toBe(realpathSync(join(repo, '.git')));
    for (const d of places) expect(readHead(d)).toBe(d === root ? null : head(d));
  });
});
