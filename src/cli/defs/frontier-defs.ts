import type { Command } from 'commander';
import { collect, lazy, list } from '../lazy.js';

const LIST_FLAGS: Array<[string, string]> = [
  ['depends-on', 'ids that must be done first'],
  ['requires', 'capabilities'],
  ['write-scope', 'write globs'],
  ['needs-decision', 'decision scopes kind:granularity:key'],
  ['exclude', 'agents that may not take it (or role:R)'],
  ['resume-when', 'conditions at:ISO, done:ID, event:RESOURCE, capability:NAME'],
];

/** The work graph and the frontier: frontier, explain, decide, claims and leases, edit, capabilities. */
export function defineFrontierCommands(program: Command): void {
  program
    .command('frontier')
    .description('what the agent may work on now, and why not the rest (reads only)')
    .option('--limit <n>', 'show at most N entries per channel (needs_decision is never cut; counts are not)')
    .option('--all', 'list every not_runnable entry (default: the first 50, the rest counted in truncated.not_runnable)')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/frontier.js'), 'runFrontier'));

  program
    .command('explain')
    .argument('[id]', 'WorkItem id or unique prefix (default: the focus)')
    .description('every frontier check for one item, in order, with pass/fail, code and detail')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/explain.js'), 'runExplain'));

  program
    .command('decide')
    .argument('<gate>', 'the user_gate WorkItem')
    .description('record a person\'s decision on a gate; approval unblocks the items it covers, rejection blocks them')
    .option('--approve', 'approve the decision scope')
    .option('--reject', 'reject it')
    .option('--note <text>', 'why')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('../commands/decide.js')));

  program
    .command('claim')
    .argument('[id]', 'WorkItem id (default: the focus)')
    .description('claim an item atomically (with --ttl: a lease that expires); exit 5 naming the holder when taken')
    .option('--ttl <duration>', 'lease length, e.g. 45m; without it the claim holds until released')
    .option('--expected-version <n>', 'compare-and-swap: fail (exit 5) unless claim.version is N (0 when never claimed)')
    .option('--key <key>', 'idempotency key: a retried claim with the same key by the same holder is a no-op')
    .option('--sync', 'count it only once pushed to the remote (as `claims: shared` in holon.yaml does)')
    .option('--json', 'print the claim as JSON')
    .action(lazy(() => import('../commands/claim.js'), 'runClaim'));

  program
    .command('renew')
    .argument('[id]', 'WorkItem id (default: the focus)')
    .description('extend your live lease (default: by the ttl it was granted with)')
    .option('--ttl <duration>', 'new lease length from now')
    .option('--sync', 'count it only once pushed (as `claims: shared` does)')
    .option('--expected-version <n>', 'compare-and-swap: fail (exit 5) unless claim.version is N')
    .option('--json', 'print the claim as JSON')
    .action(lazy(() => import('../commands/claim.js'), 'runRenew'));

  program
    .command('release')
    .argument('[id]', 'WorkItem id (default: the focus)')
    .description('end your claim now (the record keeps who held it)')
    .option('--force', 'a person may release another holder\'s claim')
    .option('--sync', 'count it only once pushed (as `claims: shared` does)')
    .option('--expected-version <n>', 'compare-and-swap: fail (exit 5) unless claim.version is N')
    .option('--json', 'print the claim as JSON')
    .action(lazy(() => import('../commands/claim.js'), 'runRelease'));

  program
    .command('transfer')
    .argument('[id]', 'WorkItem id (default: the focus)')
    .description('hand your live claim to another agent (new epoch, same expiry)')
    .option('--to <agent>', 'the receiving agent')
    .option('--force', 'a person may transfer another holder\'s claim')
    .option('--sync', 'count it only once pushed (as `claims: shared` does)')
    .option('--expected-version <n>', 'compare-and-swap: fail (exit 5) unless claim.version is N')
    .option('--json', 'print the claim as JSON')
    .action(lazy(() => import('../commands/claim.js'), 'runTransfer'));

  const edit = program
    .command('edit')
    .argument('[id]', 'WorkItem id (default: the focus)')
    .description('change the title and the graph fields of a WorkItem (validated before it is written)')
    .option('--title <text>', 'new title')
    .option('--class <class>', 'advancement_task | continuous_monitor | user_gate | user_action | blocker')
    .option('--action <kind>', 'action kind (none clears it)')
    .option('--role <role>', 'the role it serves, e.g. reviewer (none clears it)')
    .option('--require-worktree <yes|no>', 'writes need a dedicated git worktree (none clears it: the home default applies)')
    .option('--max-age <duration>', 'freshness limit of its evidence, e.g. 7d, or off (none clears it: the home default applies)')
    .option('--priority <P>', 'P0 .. P4 (none clears it)')
    .option('--repo <name>', 'repository it must run in (none clears it)')
    .option('--branch <name>', 'branch the checkout must be on (none clears it)')
    .option('--decision-scope <scope>', 'for a user_gate: kind:granularity:key (none clears it)')
    .option('--budget <limits>', 'change budget figures, e.g. tokens=4M (FIGURE=none: unlimited; none clears the item\'s budget); reopens an item blocked by a budget it now allows');
  for (const [flag, what] of LIST_FLAGS) {
    // Scopes and conditions may hold commas: those flags repeat instead of splitting.
    const repeatOnly = flag === 'resume-when' || flag === 'needs-decision';
    edit.option(`--add-${flag} <values>`, `add ${what} (${repeatOnly ? 'repeatable' : 'comma-separated or repeated'})`, repeatOnly ? collect : list);
    edit.option(`--remove-${flag} <values>`, `remove ${what}`, repeatOnly ? collect : list);
  }
  edit.option('--json', 'print the updated WorkItem as JSON').action(lazy(() => import('../commands/edit.js')));

  program
    .command('capabilities')
    .description('what this environment can do (holon.yaml and AGENTS.md); --refresh runs the probes and caches the results')
    .option('--refresh', 'run the probe commands now')
    .option('--timeout <duration>', 'per-probe timeout with --refresh (default 10s)')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/capabilities.js')));
}
