import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { HolonError, invalid } from '../core/errors.js';
import type { Home } from './home.js';
import { describeIncoming, type Incoming } from './sync-report.js';
import { configureDriver, writeAttributes } from './sync-setup.js';
import { git, gitDir, gitFailure, gitRun, lines, repoTop } from './sync-git.js';
import { sleepSync } from './sleep-sync.js';
import { withSyncLock, type SyncLockOptions } from './sync-lock.js';

/**
 * `holon sync`: commit holon's own changes (the home without local/), fetch, merge through the
 * driver, push, and start again when the push lost a race. Git does the distribution; a rejected push
 * is the compare-and-swap.
 */

export interface SyncTarget {
  top: string;
  /** The home's path inside the work tree ('.holon' usually). */
  rel: string;
  remote: string;
  branch: string;
}

export interface SyncReport {
  repo: string;
  remote: string;
  branch: string;
  committed: string[];
  incoming: Incoming;
  outgoing: { commits: number; files: string[] };
  pushed: boolean;
  attempts: number;
  conflicts: string[];
}

const RETRYABLE = /rejected|fetch first|non-fast-forward|cannot lock ref|failed to update ref|Unable to create|stale info/i;

/** Where to sync: refuses a checkout git is in the middle of something in, or with unrelated staged changes. */
export function syncTarget(home: Home, remoteWanted?: string): SyncTarget {
  const top = repoTop(home.dir);
  if (!top) throw invalid(`${home.dir} is not in a git repository`, 'holon sync needs the home committed in git with a remote: git init, git remote add origin URL');
  const rel = relative(top, home.dir) || '.';
  const gd = gitDir(top);
  if (existsSync(join(gd, 'MERGE_HEAD'))) {
    const unmerged = lines(git(top, ['diff', '--name-only', '--diff-filter=U']));
    throw invalid(
      `a merge is in progress in ${top}${unmerged.length ? ` (unresolved: ${unmerged.join(', ')})` : ''}`,
      'resolve the conflict blocks (`holon check` lists them), then `git add` the files and `git commit --no-edit`, or `git merge --abort`; then holon sync',
    );
  }
  if (existsSync(join(gd, 'rebase-merge')) || existsSync(join(gd, 'rebase-apply'))) throw invalid(`a rebase is in progress in ${top}`, 'finish it (git rebase --continue) or abort it (git rebase --abort), then holon sync');
  const staged = lines(git(top, ['diff', '--cached', '--name-only', '--', '.', `:(exclude)${rel}`]));
  if (staged.length) throw invalid(`unrelated staged changes: ${staged.slice(0, 5).join(', ')}${staged.length > 5 ? ', ...' : ''}`, 'holon sync commits only its own records: commit those first, or unstage them (git restore --staged FILE)');
  const branch = gitRun(top, ['symbolic-ref', '--short', '-q', 'HEAD']).stdout.trim();
  if (!branch) throw invalid('HEAD is detached', 'check out a branch (git switch BRANCH), then holon sync');
  const up = gitRun(top, ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}']);
  const upstream = up.code === 0 ? up.stdout.trim() : '';
  const remotes = lines(git(top, ['remote']));
  const remote = remoteWanted ?? (upstream ? upstream.split('/')[0] : remotes.includes('origin') ? 'origin' : remotes[0]);
  if (!remote) throw invalid('this repository has no remote to sync with', 'add one: git remote add origin URL');
  if (!remotes.includes(remote)) throw invalid(`no remote "${remote}"`, `use one of: ${remotes.join(', ') || '(none: git remote add origin URL)'}`);
  const remoteBranch = upstream && upstream.startsWith(`${remote}/`) ? upstream.slice(remote.length + 1) : branch;
  return { top, rel, remote, branch: remoteBranch };
}

/** The git identity to commit with: the user's, else a neutral one so a fresh CI clone can sync. */
function identity(top: string): string[] {
  const has = (k: string) => gitRun(top, ['config', '--get', k]).stdout.trim() !== '';
  return has('user.email') && has('user.name') ? [] : ['-c', 'user.name=holon', '-c', `user.email=holon@${hostname() || 'localhost'}`];
}

/** Commits what changed in the home (never local/); returns the files. */
export function commitHome(t: SyncTarget, message: string, only?: string[]): string[] {
  git(t.top, ['add', '-A', '--', ...(only ?? [t.rel])]);
  // local/ is gitignored by the home's .gitignore; should that be gone, local/ still stays out.
  const local = `${t.rel === '.' ? '' : `${t.rel}/`}local/`;
  let files = lines(git(t.top, ['diff', '--cached', '--name-only']));
  if (files.some((f) => f.startsWith(local))) {
    git(t.top, ['reset', '-q', '--', local]);
    files = files.filter((f) => !f.startsWith(local));
  }
  if (!files.length) return [];
  const args = [...identity(t.top), 'commit', '-q', '--no-verify', '-m', message];
  const r = gitRun(t.top, args);
  if (r.code === 0) return files;
  // The index is the clone's: another holon here (a watcher's --sync round) committed the same staged
  // changes between the look above and this commit. They are committed; none of them by this call.
  if (/nothing to commit|nothing added to commit/.test(r.stdout + r.stderr)) return [];
  throw gitFailure(args, r);
}

const head = (top: string) => git(top, ['rev-parse', 'HEAD']);
const isAncestor = (top: string, a: string, b: string) => gitRun(top, ['merge-base', '--is-ancestor', a, b]).code === 0;

/** Fetches the remote branch; null when it does not exist yet (a new remote). */
export function fetchRemote(t: SyncTarget): string | null {
  // Into a ref of holon's own, not FETCH_HEAD: every other fetch in this clone (a watcher's round, an
  // editor's background fetch of all branches) rewrites FETCH_HEAD, which may then be missing or name
  // another branch. Another holon sync may move this ref too, but only to a newer state of the branch.
  const ref = `refs/holon/sync/${t.remote}/${t.branch}`;
  const r = gitRun(t.top, ['fetch', '-q', t.remote, `+refs/heads/${t.branch}:${ref}`]);
  if (r.code !== 0) {
    if (/couldn't find remote ref|no such ref/i.test(r.stderr)) return null;
    throw new HolonError('unexpected', `git fetch ${t.remote} ${t.branch} failed: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`, { hint: 'check the remote (git remote -v) and your access to it' });
  }
  return git(t.top, ['rev-parse', ref]);
}

const DIRTY = /commit your changes or stash them|would be overwritten by merge/;

/**
 * Merges `theirs` into HEAD through the driver; returns the unmerged files (the merge stays in
 * progress). A record written since the home was committed (a watcher's round, an agent's note) is
 * committed and the merge tried again.
 */
export function mergeRemote(t: SyncTarget, theirs: string): string[] {
  if (isAncestor(t.top, theirs, 'HEAD')) return [];
  let r = gitRun(t.top, [...identity(t.top), 'merge', '-q', '--no-edit', '-m', `holon sync: merge ${t.remote}/${t.branch}`, theirs]);
  for (let i = 0; i < 5 && r.code !== 0 && DIRTY.test(r.stderr + r.stdout) && commitHome(t, `holon sync from ${hostname() || 'a machine'}`).length; i++) {
    r = gitRun(t.top, [...identity(t.top), 'merge', '-q', '--no-edit', '-m', `holon sync: merge ${t.remote}/${t.branch}`, theirs]);
  }
  if (r.code === 0) return [];
  const unmerged = lines(git(t.top, ['diff', '--name-only', '--diff-filter=U']));
  if (unmerged.length) return unmerged;
  throw new HolonError('unexpected', `git merge failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' / ')}`, { hint: 'local changes outside the home may be in the way: commit or stash them, then holon sync' });
}

/** Pushes HEAD; false when the remote moved meanwhile (fetch, merge and try again). */
export function pushHead(t: SyncTarget): boolean {
  const r = gitRun(t.top, ['push', '-q', t.remote, `HEAD:refs/heads/${t.branch}`]);
  if (r.code === 0) return true;
  if (RETRYABLE.test(r.stderr)) return false;
  throw new HolonError('unexpected', `git push ${t.remote} failed: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`, { hint: 'check your access to the remote (git push yourself to see the whole message)' });
}

/** Makes sure the driver is registered before any merge: a clone's git config is not committed. */
export function ensureDriver(home: Home): void {
  writeAttributes(home.dir);
  configureDriver(home.dir);
}

/** One sync, holding the clone's sync lock (a watcher's round or a shared claim here waits, and is waited for). */
export function syncHome(home: Home, opts: { remote?: string; retries?: number } & SyncLockOptions = {}): Promise<SyncReport> {
  return withSyncLock(home, 'holon sync', () => syncLocked(home, opts), opts);
}

function syncLocked(home: Home, opts: { remote?: string; retries?: number }): SyncReport {
  const t = syncTarget(home, opts.remote);
  ensureDriver(home);
  const committed = commitHome(t, `holon sync from ${hostname() || 'a machine'}`);
  if (gitRun(t.top, ['rev-parse', '-q', '--verify', 'HEAD']).code !== 0) throw invalid('nothing is committed yet and the home has nothing to commit', 'run holon init (or commit the project once), then holon sync');
  const report: SyncReport = {
    repo: t.top,
    remote: t.remote,
    branch: t.branch,
    committed,
    incoming: { commits: 0, files: [], new_items: [], changed_items: [], woken_waits: [], decisions: [] },
    outgoing: { commits: 0, files: [] },
    pushed: false,
    attempts: 0,
    conflicts: [],
  };
  const retries = Math.max(1, opts.retries ?? 8);
  for (let attempt = 1; attempt <= retries; attempt++) {
    report.attempts = attempt;
    const before = head(t.top);
    const theirs = fetchRemote(t);
    if (theirs) {
      const conflicts = mergeRemote(t, theirs);
      if (conflicts.length) {
        report.conflicts = conflicts;
        return report;
      }
      const after = head(t.top);
      if (after !== before) describeIncoming(t, before, after, report.incoming);
      if (after === theirs) return report;
    }
    const out = theirs ? `${theirs}..HEAD` : 'HEAD';
    const commits = Number(git(t.top, ['rev-list', '--count', out]));
    const files = theirs ? lines(git(t.top, ['diff', '--name-only', theirs, 'HEAD', '--', t.rel])) : lines(git(t.top, ['ls-tree', '-r', '--name-only', 'HEAD', '--', t.rel]));
    if (pushHead(t)) {
      report.pushed = true;
      report.outgoing = { commits, files };
      return report;
    }
    sleepSync(30 + Math.floor(Math.random() * 120 * attempt));
  }
  throw new HolonError('conflict', `the remote kept moving: ${retries} pushes were rejected`, { hint: 'run holon sync again (nothing is lost: your commits are local)' });
}
