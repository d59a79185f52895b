import { execFileSync } from 'node:child_process';

/** The checkout's HEAD commit, or null outside a repository. */
export function headCommit(cwd: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** The checked-out branch, or null (detached, or not a repository). */
export function currentBranch(cwd: string): string | null {
  try {
    const b = execFileSync('git', ['symbolic-ref', '--short', '-q', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
    return b || null;
  } catch {
    return null;
  }
}

/** A revision (HEAD, a branch, a tag, a short sha) resolved to its full commit sha, or null when git cannot. */
export function resolveCommit(cwd: string, rev: string): string | null {
  if (rev.startsWith('-')) return null;
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}
