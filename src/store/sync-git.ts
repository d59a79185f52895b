import { spawnSync } from 'node:child_process';
import { HolonError, invalid } from '../core/errors.js';
import { sleepSync } from './sleep-sync.js';

/** Plain git calls for sync: each returns its output or throws a HolonError that quotes git. */

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

// Another git process in this clone holds the index or a ref: a watcher's round, or a fetch that moved
// a ref between this one's read and its write ("cannot lock ref 'X': is at A but expected B").
const INDEX_BUSY = /index\.lock'?: File exists|Unable to create .*\.lock|cannot lock ref/;

/** Runs git; while another git process in this clone holds the index or a ref, waits for it. */
export function gitRun(cwd: string, args: string[], input?: string): GitResult {
  for (let attempt = 0; ; attempt++) {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8', input, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    if (r.error) throw invalid(`cannot run git: ${r.error.message}`, 'install git and make sure it is on PATH');
    const res = { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
    if (res.code === 0 || attempt >= 40 || !INDEX_BUSY.test(res.stderr) || args[0] === 'push') return res;
    sleepSync(50);
  }
}

/** The error for a git call that failed: the command and the end of git's message. */
export function gitFailure(args: string[], r: GitResult): HolonError {
  return new HolonError('unexpected', `git ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' / ')}`, {
    hint: 'run the same git command yourself to see the whole message',
  });
}

/** Runs git and returns stdout trimmed; a failure is an error naming the command and git's message. */
export function git(cwd: string, args: string[], input?: string): string {
  const r = gitRun(cwd, args, input);
  if (r.code !== 0) throw gitFailure(args, r);
  return r.stdout.replace(/\n$/, '');
}

/** The top of the work tree holding `dir`, or null outside a repository. */
export function repoTop(dir: string): string | null {
  const r = gitRun(dir, ['rev-parse', '--show-toplevel']);
  return r.code === 0 ? r.stdout.trim() : null;
}

/** The repository's git folder (where MERGE_HEAD lives). */
export function gitDir(top: string): string {
  return git(top, ['rev-parse', '--absolute-git-dir']);
}

/** Lines of output, without empty ones. */
export const lines = (s: string) => s.split('\n').filter(Boolean);
