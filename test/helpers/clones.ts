import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { holon, tempDir, type Run } from './cli.js';

/** Runs git in `cwd` and returns stdout; throws with git's message on failure. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * A fresh clone of `src` in a temp folder. git writes its index right after the files: on a fast clone
 * of a few files they can share its timestamp tick and be racily clean (vouched for by nothing, as git
 * itself would re-read them). A clone of a real home takes longer than a tick; here the index is
 * written again a little later, as any `git status` that refreshes it would.
 */
export async function freshClone(src: string): Promise<string> {
  const dir = join(tempDir(), 'clone');
  git(src, 'clone', '-q', src, dir);
  await new Promise((r) => setTimeout(r, 30));
  git(dir, 'update-index', '--force-write-index');
  return dir;
}

/** What `run` gives in the checkout `dir` with no `.holon/local` (a fresh clone's state); its local/ is put back after. */
export async function withoutLocal<T>(dir: string, run: () => Promise<T>): Promise<T> {
  const local = join(dir, '.holon/local');
  rmSync(`${local}.kept`, { recursive: true, force: true });
  try {
    renameSync(local, `${local}.kept`);
  } catch {
    // None yet.
  }
  try {
    return await run();
  } finally {
    rmSync(local, { recursive: true, force: true });
    try {
      renameSync(`${local}.kept`, local);
    } catch {
      // There was none.
    }
  }
}

/**
 * A bare repository on the local disk as the remote and `n` clones of one home, each with its own
 * git identity and the merge driver registered. Clone 0 created the home and one WorkItem.
 */
export async function clones(n: number, opts: { agent?: string; config?: string } = {}) {
  const agent = opts.agent ?? 'main';
  const base = tempDir('holon-sync-');
  const remote = join(base, 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  const dirs = Array.from({ length: n }, (_, i) => join(base, `c${i}`));
  const setIdentity = (d: string, i: number) => {
    git(d, 'config', 'user.email', `c${i}@test`);
    git(d, 'config', 'user.name', `clone ${i}`);
  };
  execFileSync('git', ['init', '-q', '-b', 'main', dirs[0]]);
  setIdentity(dirs[0], 0);
  git(dirs[0], 'remote', 'add', 'origin', remote);
  const h = (i: number, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> => holon(args, { cwd: dirs[i], env });
  const must = async (i: number, args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = await h(i, args, env);
    if (r.code !== 0) throw new Error(`clone ${i}: holon ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  await must(0, ['init', '--agent', agent]);
  if (opts.config) execFileSync('sh', ['-c', `cat >> .holon/holon.yaml`], { cwd: dirs[0], input: opts.config });
  const id = (await must(0, ['new', 'Review PR #101 and deliver a conclusion'])).trim();
  await must(0, ['sync']);
  git(dirs[0], 'branch', '-q', '-u', 'origin/main');
  for (let i = 1; i < n; i++) {
    git(base, 'clone', '-q', remote, dirs[i]);
    setIdentity(dirs[i], i);
    await must(i, ['setup', 'git']);
  }
  const file = (i: number, item = id) => join(dirs[i], '.holon/agents', agent, 'work', `${item}.md`);
  const show = async (i: number, item = id) => JSON.parse(await must(i, ['show', item, '--json']));
  return { base, remote, dirs, id, h, must, show, file, read: (i: number, item = id) => readFileSync(file(i, item), 'utf8'), git: (i: number, ...args: string[]) => git(dirs[i], ...args) };
}
