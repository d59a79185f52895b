import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Workspace } from '../core/frontier.js';

/**
 * The checkout a command runs in, for the workspace guard: one git call. A repository answers to its
 * origin URL, the URL's owner/name and name, and the folder name of its main checkout (so worktrees
 * of one repository share an identity).
 */
export function readWorkspace(cwd: string): Workspace {
  return readWorkspaceFiles(cwd) ?? readWorkspaceGit(cwd);
}

/**
 * The same answer read from the .git files (HEAD, the worktree's gitdir and commondir), which costs
 * no process. Anything unusual (GIT_DIR set, no symbolic HEAD we can read, reftable) returns null and
 * real git answers instead.
 */
function readWorkspaceFiles(cwd: string): Workspace | null {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_COMMON_DIR) return null;
  let dir = cwd;
  for (;;) {
    const dotGit = join(dir, '.git');
    let gitDir: string | null = null;
    try {
      const st = statSync(dotGit);
      if (st.isDirectory()) gitDir = dotGit;
      else {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
        if (!m) return null;
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
          // A main checkout: the git dir is the common dir.
        }
        let branch: string | null = null;
        if (head.startsWith('ref: ')) {
          const ref = head.slice(5).trim();
          if (!ref.startsWith('refs/heads/') || ref.endsWith('/.invalid')) return null;
          branch = ref.slice('refs/heads/'.length);
        } else if (!/^[0-9a-f]{40,64}$/.test(head)) return null;
        return identity(dir, common, branch);
      } catch {
        return null;
      }
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

export function readWorkspaceGit(cwd: string): Workspace {
  let lines: string[];
  try {
    lines = execFileSync('git', ['rev-parse', '--show-toplevel', '--git-common-dir', '--abbrev-ref', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim().split('\n');
  } catch {
    return { git: false, repo_ids: [], repo: null, branch: null };
  }
  const [top, commonRaw, head] = lines;
  const common = isAbsolute(commonRaw) ? commonRaw : join(cwd, commonRaw);
  return identity(top, common, head && head !== 'HEAD' ? head : null);
}

function identity(top: string, commonDir: string, branch: string | null): Workspace {
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
  return { git: true, repo_ids: [...ids], repo: repo ?? mainFolder, branch };
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
