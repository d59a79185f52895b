import { HolonError, conflict } from '../core/errors.js';
import type { Home } from './home.js';
import { git, gitRun } from './sync-git.js';
import { commitHome, ensureDriver, fetchRemote, mergeRemote, pushHead, syncTarget, type SyncTarget } from './sync.js';
import { sleepSync } from './sleep-sync.js';
import { withSyncLock, type SyncLockOptions } from './sync-lock.js';

/**
 * Claims that hold across clones (`claims: shared`): a claim, renew, release or transfer counts only
 * once it is pushed. Each attempt brings in the remote first, applies the change to what it brought,
 * commits the changed files and pushes; a rejected push (someone pushed first) undoes the commit and
 * starts again, so the change is decided again on the newer state: a claim someone else now holds
 * fails there with exit 5 naming the holder, and nothing of ours is left behind.
 */

export interface SharedOutcome {
  attempts: number;
  pushed: boolean;
}

/** Back to the commit before ours, with the changed files as they were there. */
function undo(t: SyncTarget, ours: string): void {
  if (git(t.top, ['rev-parse', 'HEAD']) !== ours) return;
  git(t.top, ['reset', '-q', '--keep', 'HEAD~1']);
}

/** The whole change (every attempt) holds the clone's sync lock, taken before `fn`'s own locks. */
export function sharedChange<T>(home: Home, what: string, fn: () => Promise<T>, files: (r: T) => string[], opts: { retries?: number } & SyncLockOptions = {}): Promise<T & { shared: SharedOutcome }> {
  return withSyncLock(home, what, () => sharedLocked(home, what, fn, files, opts), opts);
}

async function sharedLocked<T>(home: Home, what: string, fn: () => Promise<T>, files: (r: T) => string[], opts: { retries?: number }): Promise<T & { shared: SharedOutcome }> {
  const retries = Math.max(1, opts.retries ?? 10);
  ensureDriver(home);
  for (let attempt = 1; attempt <= retries; attempt++) {
    const t = syncTarget(home);
    commitHome(t, `holon: records before ${what}`);
    const theirs = fetchRemote(t);
    if (theirs) {
      const unmerged = mergeRemote(t, theirs);
      if (unmerged.length) throw conflict(`cannot ${what}: merging the remote conflicts in ${unmerged.join(', ')}`, 'resolve the conflict blocks (`holon check` lists them), git add them, git commit --no-edit, then try again');
    }
    const result = await fn();
    const changed = commitHome(t, `holon: ${what}`, files(result));
    const ours = changed.length ? git(t.top, ['rev-parse', 'HEAD']) : null;
    const ahead = theirs ? gitRun(t.top, ['merge-base', '--is-ancestor', 'HEAD', theirs]).code !== 0 : true;
    if (!ahead) return { ...result, shared: { attempts: attempt, pushed: false } };
    let pushed: boolean;
    try {
      pushed = pushHead(t);
    } catch (err) {
      if (ours) undo(t, ours);
      throw err;
    }
    if (pushed) return { ...result, shared: { attempts: attempt, pushed: true } };
    if (ours) undo(t, ours);
    sleepSync(20 + Math.floor(Math.random() * 80 * attempt));
  }
  throw new HolonError('conflict', `cannot ${what}: the remote kept moving (${retries} pushes rejected); nothing of this change was kept`, { hint: 'try again; holon sync shows what is arriving' });
}
