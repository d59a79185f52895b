import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Workspace } from '../core/frontier.js';

/**
 * The checkout a command runs in, for the workspace guard: one git call. A repository answers to its
 * origin URL, the URL's owner/name and name, and the folder name of its main checkout (so worktrees
 * of one repository share an identity).
 */
export function readWorkspace(cwd: string): Workspace {
  let lines: string[];
  try {
    lines = execFileSync('git', ['rev-parse', '--show-toplevel', '--git-common-dir', '--abbrev-ref', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim().split('\n');
  } catch {
    return { git: false, repo_ids: [], repo: null, branch: null };
  }
  const [top, commonRaw, head] = lines;
  const common = isAbsolute(commonRaw) ? commonRaw : join(cwd, commonRaw);
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
  return { git: true, repo_ids: [...ids], repo: repo ?? mainFolder, branch: head && head !== 'HEAD' ? head : null };
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
