import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Workspace } from '../core/frontier.js';
import type { Ancestry } from '../core/frontier-freshness.js';
import { fileKey } from './cache-file.js';
import { headCommit } from './git.js';

/**
 * The checkout a command runs in, for the workspace guard: one git call. A repository answers to its
 * origin URL, the URL's owner/name and name, and the folder name of its main checkout (so worktrees
 * of one repository share an identity).
 */
export function readWorkspace(cwd: string): Workspace {
  return readWorkspaceFiles(cwd) ?? readWorkspaceGit(cwd);
}

interface GitPlace {
  /** The checkout's top folder. */
  dir: string;
  /** This checkout's git dir (.git, or .git/worktrees/NAME of a linked worktree). */
  gitDir: string;
  /** The repository's common dir (the main checkout's .git). */
  common: string;
  head: string;
}

/**
 * Finds the git dir of the checkout holding `cwd` from the files alone (`.git` a folder, or a file
 * `gitdir: ...` in a linked worktree or a submodule; `commondir` names the shared repository). Null
 * outside git; 'unusual' when real git must answer (GIT_DIR set, an unreadable layout).
 */
function locateGit(cwd: string): GitPlace | null | 'unusual' {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_COMMON_DIR) return 'unusual';
  let dir = cwd;
  for (;;) {
    const dotGit = join(dir, '.git');
    let gitDir: string | null = null;
    try {
      const st = statSync(dotGit);
      if (st.isDirectory()) gitDir = dotGit;
      else {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
        if (!m) return 'unusual';
        gitDir = isAbsolute(m[1]) ? m[1] : join(dir, m[1]);
      }
    } catch {
      gitDir = null;
    }
    if (gitDir) {
      try {
        const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
        let common = gitDir;
        try {
          const c = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
          common = isAbsolute(c) ? c : join(gitDir, c);
        } catch {
          // A main checkout (or a submodule): the git dir is the common dir.
        }
        return { dir, gitDir, common, head };
      } catch {
        return 'unusual';
      }
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/**
 * The same answer read from the .git files (HEAD, the worktree's gitdir and commondir), which costs
 * no process. Anything unusual (GIT_DIR set, no symbolic HEAD we can read, reftable) returns null and
 * real git answers instead.
 */
function readWorkspaceFiles(cwd: string): Workspace | null {
  const g = locateGit(cwd);
  if (g === 'unusual') return null;
  if (!g) return null;
  let branch: string | null = null;
  if (g.head.startsWith('ref: ')) {
    const ref = g.head.slice(5).trim();
    if (!ref.startsWith('refs/heads/') || ref.endsWith('/.invalid')) return null;
    branch = ref.slice('refs/heads/'.length);
  } else if (!/^[0-9a-f]{40,64}$/.test(g.head)) return null;
  return identity(g.dir, g.common, branch, resolve(g.gitDir) !== resolve(g.common));
}

/**
 * The checkout's HEAD commit from the files (HEAD, then the ref as a loose file or in packed-refs);
 * real git only when the layout is unusual. Null outside git or on a branch with no commit yet.
 */
export function readHead(cwd: string): string | null {
  const g = locateGit(cwd);
  if (!g) return null;
  if (g !== 'unusual') {
    if (/^[0-9a-f]{40,64}$/.test(g.head)) return g.head;
    const ref = g.head.startsWith('ref: ') ? g.head.slice(5).trim() : null;
    if (ref && ref.startsWith('refs/heads/') && !ref.endsWith('/.invalid')) {
      for (const base of [g.gitDir, g.common]) {
        try {
          const sha = readFileSync(join(base, ref), 'utf8').trim();
          if (/^[0-9a-f]{40,64}$/.test(sha)) return sha;
        } catch {
          // Not a loose ref here.
        }
      }
      let packed = '';
      try {
        packed = readFileSync(join(g.common, 'packed-refs'), 'utf8');
      } catch {
        // No packed refs.
      }
      const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
      if (line && /^[0-9a-f]{40,64} /.test(line)) return line.split(' ')[0];
      // A branch with no commit yet has no ref anywhere; anything else (reftable) asks git.
      if (!existsSync(join(g.common, 'reftable'))) return null;
    }
  }
  return headCommit(cwd);
}

/**
 * A signature of where new objects would appear for these commits (the pack folder, and each one's loose
 * object folder): while it is unchanged, a commit git did not have is still missing, with no git call.
 */
export function objectsSignature(cwd: string, commits: string[]): string {
  const g = locateGit(cwd);
  if (!g || g === 'unusual') return '?';
  const dirs = ['pack', ...new Set(commits.map((c) => c.slice(0, 2).toLowerCase()))];
  return dirs.map((d) => `${d}:${fileKey(join(g.common, 'objects', d)) ?? '-'}`).join('|') + `|alt:${fileKey(join(g.common, 'objects', 'info', 'alternates')) ?? '-'}`;
}

/**
 * How `commit` relates to `head`: an ancestor (HEAD moved past it), another line of history (ahead or
 * diverged), or unknown to this repository. One `git merge-base --is-ancestor` call.
 */
export function ancestryOf(cwd: string, commit: string, head: string): Ancestry {
  if (!/^[0-9a-f]{4,64}$/i.test(commit)) return 'unknown';
  if (head.startsWith(commit) || commit.startsWith(head)) return 'same';
  const r = spawnSync('git', ['merge-base', '--is-ancestor', commit, head], { cwd, stdio: 'ignore' });
  return r.status === 0 ? 'ancestor' : r.status === 1 ? 'other' : 'unknown';
}

export function readWorkspaceGit(cwd: string): Workspace {
  let lines: string[];
  try {
    lines = execFileSync('git', ['rev-parse', '--show-toplevel', '--git-dir', '--git-common-dir', '--abbrev-ref', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim().split('\n');
  } catch {
    return { git: false, repo_ids: [], repo: null, branch: null, worktree: false, common: null };
  }
  const [top, gitDirRaw, commonRaw, head] = lines;
  const abs = (p: string) => resolve(isAbsolute(p) ? p : join(cwd, p));
  return identity(top, abs(commonRaw), head && head !== 'HEAD' ? head : null, abs(gitDirRaw) !== abs(commonRaw));
}

function identity(top: string, commonDir: string, branch: string | null, worktree: boolean): Workspace {
  const common = resolve(commonDir);
  const mainFolder = basename(common) === '.git' ? basename(dirname(common)) : basename(common).replace(/\.git$/, '');
  const url = originUrl(common);
  const ids = new Set<string>();
  let repo: string | null = null;
  if (url) {
    const path = url.replace(/\.git$/, '').replace(/\/+$/, '').split(/[:/]/).filter(Boolean);
    const name = path[path.length - 1];
    const owner = path[path.length - 2];
    repo = owner ? `${owner}/${name}` : name;
    ids.add(url);
    ids.add(url.replace(/\.git$/, ''));
    ids.add(repo);
    ids.add(name);
  }
  ids.add(mainFolder);
  ids.add(basename(top));
  let real = common;
  try {
    real = realpathSync(common);
  } catch {
    // Keep the path as found.
  }
  return { git: true, repo_ids: [...ids], repo: repo ?? mainFolder, branch, worktree, common: real };
}

function originUrl(commonDir: string): string | null {
  let text: string;
  try {
    text = readFileSync(join(commonDir, 'config'), 'utf8');
  } catch {
    return null;
  }
  let inOrigin = false;
  for (const line of text.split('\n')) {
    const section = /^\s*\[(.+)\]\s*$/.exec(line);
    if (section) inOrigin = /^remote\s+"origin"$/.test(section[1].trim());
    else if (inOrigin) {
      const m = /^\s*url\s*=\s*(.+?)\s*$/.exec(line);
      if (m) return m[1];
    }
  }
  return null;
}
