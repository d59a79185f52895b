import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedBetween, gitSnapshot } from '../../src/store/git-changes.js';
import { tempDir } from '../helpers/cli.js';

function repo() {
  const dir = tempDir();
  const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'test');
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, '.holon'), { recursive: true });
  for (const f of ['src/a.ts', 'src/b.ts', 'src/old.ts', 'dirty.md']) writeFileSync(join(dir, f), `${f}\n`);
  git('add', '-A');
  git('commit', '-qm', 'init');
  writeFileSync(join(dir, 'dirty.md'), 'dirty before the command\n');
  return { dir, git, home: join(dir, '.holon') };
}

describe('what a command changed, by git', () => {
  it('sees edits, new, deleted and renamed files and commits made in between; not files already dirty and left alone, nor the home', () => {
    const r = repo();
    const before = gitSnapshot(join(r.dir, 'src'), r.home)!;
    expect(before.files.has('dirty.md')).toBe(true);
    writeFileSync(join(r.dir, 'src/a.ts'), 'edited\n');
    writeFileSync(join(r.dir, 'src/new.ts'), 'new\n');
    rmSync(join(r.dir, 'src/b.ts'));
    r.git('mv', 'src/old.ts', 'src/renamed.ts');
    writeFileSync(join(r.dir, '.holon/record.yaml'), 'holon writes its own records\n');
    mkdirSync(join(r.dir, 'docs'));
    writeFileSync(join(r.dir, 'docs/x.md'), 'x\n');
    r.git('add', 'docs/x.md');
    r.git('commit', '-qm', 'docs', '--', 'docs/x.md');
    const after = gitSnapshot(r.dir, r.home)!;
    expect(changedBetween(before, after, r.home)).toEqual(['docs/x.md', 'src/a.ts', 'src/b.ts', 'src/new.ts', 'src/old.ts', 'src/renamed.ts']);
  });

  it('sees a change to a file that was dirty already, and nothing when nothing changed', () => {
    const r = repo();
    const before = gitSnapshot(r.dir, r.home)!;
    expect(changedBetween(before, gitSnapshot(r.dir, r.home)!, r.home)).toEqual([]);
    writeFileSync(join(r.dir, 'dirty.md'), 'dirty, then changed by the command\n');
    expect(changedBetween(before, gitSnapshot(r.dir, r.home)!, r.home)).toEqual(['dirty.md']);
  });

  it('is null outside a git checkout', () => {
    expect(gitSnapshot(tempDir(), null)).toBeNull();
  });
});
