import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * What a command changed in a checkout, told by git rather than by the child: a snapshot of HEAD and
 * of every dirty or untracked file (with a hash of its content) before, compared with one after.
 * Paths are relative to the repository root, with "/" separators.
 */
export interface GitSnapshot {
  root: string;
  head: string | null;
  files: Map<string, string>;
}

const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/** The repository root holding `dir`, or null when it is not in a git checkout. */
export function gitRoot(dir: string): string | null {
  try {
    return git(dir, ['rev-parse', '--show-toplevel']).trim() || null;
  } catch {
    return null;
  }
}

function hashOf(file: string): string {
  try {
    return createHash('sha1').update(readFileSync(file)).digest('hex');
  } catch {
    return 'missing';
  }
}

/** Takes a snapshot; null outside a git checkout. `exclude` is a folder (the home) whose changes are holon's own. */
export function gitSnapshot(dir: string, exclude: string | null): GitSnapshot | null {
  const root = gitRoot(dir);
  if (!root) return null;
  let head: string | null = null;
  try {
    head = git(root, ['rev-parse', '--verify', '-q', 'HEAD']).trim() || null;
  } catch {
    head = null; // no commit yet
  }
  const skip = exclude ? relative(root, exclude).split(sep).join('/') : null;
  const files = new Map<string, string>();
  const parts = git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all']).split('\0');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i];
    if (entry.length < 4) continue;
    const paths = [entry.slice(3)];
    // A rename or copy is followed by its source path.
    if (entry[0] === 'R' || entry[0] === 'C') paths.push(parts[++i]);
    for (const p of paths) {
      if (skip && !skip.startsWith('..') && (p === skip || p.startsWith(skip + '/'))) continue;
      files.set(p, hashOf(join(root, p)));
    }
  }
  return { root, head, files };
}

/** The paths that differ between two snapshots: committed in between, or dirty with other content. */
export function changedBetween(before: GitSnapshot, after: GitSnapshot, exclude: string | null): string[] {
  const changed = new Set<string>();
  for (const [p, h] of after.files) if (before.files.get(p) !== h) changed.add(p);
  for (const p of before.files.keys()) if (!after.files.has(p)) changed.add(p);
  if (after.head && after.head !== before.head) {
    try {
      const range = before.head ? [before.head, after.head] : [after.head];
      const out = before.head ? git(after.root, ['diff', '--name-only', '-z', ...range]) : git(after.root, ['show', '--name-only', '-z', '--format=', after.head]);
      for (const p of out.split('\0')) if (p) changed.add(p);
    } catch {
      // history rewritten under us: the dirty files are still compared
    }
  }
  const skip = exclude ? relative(after.root, exclude).split(sep).join('/') : null;
  return [...changed].filter((p) => !(skip && !skip.startsWith('..') && (p === skip || p.startsWith(skip + '/')))).sort();
}
