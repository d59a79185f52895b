import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invalid } from '../core/errors.js';
import { gitRun, repoTop } from './sync-git.js';

/**
 * Registers holon's merge driver: the committed `.holon/.gitattributes` says which files merge with
 * `merge=holon`, and the clone's own git config says what that runs. The command is this installation's
 * node and bin by absolute path: it runs with no PATH, no npx and no network inside git, and `holon
 * setup git` (which `holon sync` runs too) rewrites it when the installation moves.
 */

// Functions, not constants: a `pick` loads this module and needs neither path (the first URL a process makes costs 0.2 ms).
const template = () => fileURLToPath(new URL('../../templates/gitattributes', import.meta.url));
const bin = () => fileURLToPath(new URL('../../bin/holon.js', import.meta.url));

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The merge driver line for git config (`merge.holon.driver`). */
export function driverCommand(): string {
  return `${quote(process.execPath)} ${quote(bin())} merge-file %O %A %B %P`;
}

export function attributesText(): string {
  return readFileSync(template(), 'utf8');
}

export interface GitSetup {
  attributes: { file: string; changed: boolean };
  config: { repo: string | null; driver: string; changed: boolean };
}

/** Writes `.holon/.gitattributes` when it lacks holon's lines (keeping lines people added). */
export function writeAttributes(homeDir: string, dryRun = false): { file: string; changed: boolean } {
  const file = join(homeDir, '.gitattributes');
  const want = attributesText();
  const cur = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const rules = want.split('\n').filter((l) => l && !l.startsWith('#'));
  const missing = rules.filter((r) => !cur.split('\n').includes(r));
  if (!missing.length) return { file, changed: false };
  const next = cur ? `${cur.replace(/\n?$/, '\n')}${missing.join('\n')}\n` : want;
  if (!dryRun) writeFileSync(file, next);
  return { file, changed: true };
}

/** Sets merge.holon.* in the repository's config; `required` makes "not a repository" an error. */
export function configureDriver(homeDir: string, opts: { dryRun?: boolean; required?: boolean } = {}): GitSetup['config'] {
  const driver = driverCommand();
  const top = repoTop(homeDir);
  if (!top) {
    if (opts.required) throw invalid(`${homeDir} is not in a git repository`, 'run `git init` (or clone the repository) first, then `holon setup git`');
    return { repo: null, driver, changed: false };
  }
  const cur = gitRun(top, ['config', '--local', '--get', 'merge.holon.driver']).stdout.trim();
  if (cur === driver) return { repo: top, driver, changed: false };
  if (!opts.dryRun) {
    gitRun(top, ['config', '--local', 'merge.holon.name', 'holon records (field by field)']);
    gitRun(top, ['config', '--local', 'merge.holon.driver', driver]);
  }
  return { repo: top, driver, changed: true };
}

export function setupGit(homeDir: string, opts: { dryRun?: boolean; required?: boolean } = {}): GitSetup {
  return { attributes: writeAttributes(homeDir, opts.dryRun), config: configureDriver(homeDir, opts) };
}
