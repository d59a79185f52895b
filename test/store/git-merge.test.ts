import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, ROOT, tempDir } from '../helpers/cli.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const addItems = (dir: string, tag: string) =>
  execFileSync(process.execPath, [join(ROOT, 'test/helpers/create-worker.mjs'), join(dir, '.holon'), 'main', '50', tag]);

describe('records survive git', () => {
  it('two clones each add 50 items; the merge has no conflicts and holon check is clean', async () => {
    const base = tempDir();
    const origin = join(base, 'origin');
    execFileSync('git', ['init', '-q', '-b', 'main', origin]);
    expect((await holon(['init', '--agent', 'main'], { cwd: origin })).code).toBe(0);
    git(origin, 'add', '-A');
    git(origin, 'commit', '-qm', 'home');
    const a = join(base, 'a');
    const b = join(base, 'b');
    git(base, 'clone', '-q', origin, a);
    git(base, 'clone', '-q', origin, b);
    addItems(a, 'A');
    addItems(b, 'B');
    // local/ (locks, caches) must not be committed.
    expect(git(a, 'status', '--porcelain')).not.toMatch(/local\//);
    for (const d of [a, b]) {
      git(d, 'add', '-A');
      git(d, 'commit', '-qm', 'items');
    }
    git(a, 'pull', '-q', '--no-rebase', '--no-edit', b, 'main');
    expect(readdirSync(join(a, '.holon/agents/main/work')).filter((f) => f.endsWith('.md'))).toHaveLength(100);
    const check = await holon(['check'], { cwd: a });
    expect(check.stdout + check.stderr).toMatch(/no problems/);
    expect(check.code).toBe(0);
    const list = JSON.parse((await holon(['list', '--json'], { cwd: a })).stdout);
    expect(list.items).toHaveLength(100);
  });
});
