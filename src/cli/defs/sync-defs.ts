import type { Command } from 'commander';
import { lazy } from '../lazy.js';

/** Working across machines: the merge driver git runs, its setup, and `holon sync`. */
export function defineSyncCommands(program: Command): void {
  program
    .command('sync')
    .description("commit holon's own changes (.holon/ without local/), fetch, merge field by field, push; retries when the remote moved")
    .option('--remote <name>', 'the remote to sync with (default: the branch upstream, else origin)')
    .option('--retries <n>', 'pushes to try when the remote keeps moving (default 5)')
    .option('--json', 'print what came in and went out as JSON')
    .action(lazy(() => import('../commands/sync.js'), 'runSync'));

  program
    .command('merge-file')
    .argument('<base>', "the common ancestor's version (git's %O)")
    .argument('<ours>', 'our version; the result is written here (%A)')
    .argument('<theirs>', 'their version (%B)')
    .argument('[path]', 'the path in the repository (%P): it says which kind of record this is')
    .description("git's merge driver for holon records: field by field; exit 0 when clean, 5 with conflict blocks `holon check` reports")
    .option('--json', 'print the outcome as JSON')
    .action(lazy(() => import('../commands/merge-file.js')));

  // `setup` may already be defined by another group (setup claude|codex): add to it.
  const setup = program.commands.find((c) => c.name() === 'setup') ?? program.command('setup').description('connect holon to the tools around it');
  setup
    .command('git')
    .description('register the merge driver: .holon/.gitattributes (commit it) and merge.holon.* in this clone\'s git config')
    .option('--dry-run', 'say what would change, change nothing')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('../commands/sync.js'), 'runSetupGit'));
}
