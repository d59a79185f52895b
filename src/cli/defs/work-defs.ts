import type { Command } from 'commander';
import { collect, lazy, list } from '../lazy.js';

/** The everyday commands: home, agents, WorkItems, resume, check. */
export function defineWorkCommands(program: Command): void {
  program
    .command('init')
    .description('create .holon/ here (or at --home): holon.yaml, .gitignore for local/, and one agent')
    .option('--json', 'print what was created as JSON')
    .action(lazy(() => import('../commands/init.js'), 'runInit'));

  const agent = program.command('agent').description('manage the agents of this home');
  agent
    .command('add')
    .argument('<name>', 'agent name (letters, digits, - and _)')
    .description('add an agent with an AGENTS.md from the template')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('../commands/init.js'), 'runAgentAdd'));
  agent
    .command('list')
    .description('list the agents, with their focus and open items')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/init.js'), 'runAgentList'));

  program
    .command('new')
    .argument('<objective>', 'what must be delivered (becomes the ## Objective section)')
    .description('create a WorkItem for the agent')
    .option('--title <text>', 'short title (default: the first line of the objective)')
    .option('--class <class>', 'advancement_task | continuous_monitor | user_gate | user_action | blocker')
    .option('--action <kind>', 'action kind, e.g. review, implement, release')
    .option('--role <role>', 'the role it serves, e.g. implementer, reviewer, monitor (usable in --exclude role:R)')
    .option('--priority <P>', 'P0 (highest) .. P4')
    .option('--depends-on <ids>', 'ids that must be done first (comma-separated or repeated)', list)
    .option('--accept <criterion>', 'an acceptance criterion (repeatable)', collect)
    .option('--requires <caps>', 'capabilities it needs, e.g. shell,gpu (comma-separated or repeated)', list)
    .option('--repo <name>', 'the repository it must run in (origin owner/name, name, or folder)')
    .option('--branch <name>', 'the branch the checkout must be on')
    .option('--write-scope <globs>', 'paths it writes, as globs relative to the repo (comma-separated or repeated)', list)
    .option('--needs-decision <scope>', 'a decision it needs first, kind:granularity:key (repeatable)', collect)
    .option('--decision-scope <scope>', 'for a user_gate: the decision it stands for, kind:granularity:key')
    .option('--exclude <agents>', 'agents that may not take it, or role:R for whoever served role R on the work it follows (comma-separated or repeated)', list)
    .option('--resume-when <cond>', 'at:ISO, done:ID, event:RESOURCE or capability:NAME (repeatable)', collect)
    .option('--budget <limits>', 'what its runs may spend, e.g. tokens=2M,cost=5usd,runs=20,time=2h (docs/budgets.md)')
    .option('--require-worktree', 'writes need a dedicated git worktree: the main checkout is refused (shared_checkout)')
    .option('--max-age <duration>', 'evidence older than this is stale (e.g. 7d; off ignores the home default)')
    .option('--pick', 'also make it the agent\'s focus')
    .option('--json', 'print the new WorkItem as JSON')
    .action(lazy(() => import('../commands/new.js')));

  program
    .command('list')
    .description("list the agent's open WorkItems (focus marked with *)")
    .option('--all', 'every status, not only open')
    .option('--status <status>', 'only this status (open, done, blocked, deferred)')
    .option('--every-agent', 'all agents, not only the current one')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/list.js')));

  program
    .command('show')
    .argument('[id]', 'WorkItem id or unique prefix (default: the focus)')
    .description('show one WorkItem: its state and its record')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/show.js')));

  program
    .command('pick')
    .argument('[id]', 'WorkItem id or unique prefix; without it: claim the top runnable item of the frontier')
    .description('make a WorkItem the agent\'s focus (the current WorkItem; focus is not running)')
    .option('--ttl <duration>', 'without an id: claim as a lease of this length')
    .option('--sync', 'without an id: the claim counts only once pushed (as `claims: shared` in holon.yaml does)')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/pick.js')));

  program
    .command('progress')
    .argument('<args...>', '[ID] TEXT')
    .description('append a progress entry (ID defaults to the focus)')
    .option('--on-return <text>', 'also replace the On return note')
    .option('--commit <sha>', 'the commit this progress was made on (HEAD works; the frontier flags it stale once HEAD moves past it)')
    .option('--work <id>', 'the WorkItem (instead of a first word that names it; default: the focus)')
    .option('--json', 'print the updated WorkItem as JSON')
    .action(lazy(() => import('../commands/record.js'), 'runProgress'));

  program
    .command('evidence')
    .argument('<args...>', '[ID] TEXT')
    .description('append evidence: what it proves, and the commit or run it was observed on')
    .option('--commit <sha>', 'the commit the evidence was observed on (default: none)')
    .option('--run <id>', 'the run or CI job it was observed on')
    .option('--work <id>', 'the WorkItem (instead of a first word that names it; default: the focus)')
    .option('--json', 'print the updated WorkItem as JSON')
    .action(lazy(() => import('../commands/record.js'), 'runEvidence'));

  program
    .command('on-return')
    .argument('<args...>', '[ID] TEXT')
    .description('set the On return note: where the work should resume')
    .option('--work <id>', 'the WorkItem (instead of a first word that names it; default: the focus)')
    .option('--json', 'print the updated WorkItem as JSON')
    .action(lazy(() => import('../commands/record.js'), 'runOnReturn'));

  program
    .command('resume')
    .argument('[id]', 'WorkItem id (default: the focus)')
    .description('print what an agent needs to continue, from the record (the runner prompt)')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/resume.js')));

  program
    .command('check')
    .description('validate the whole home: bad YAML, conflict markers, duplicate ids, missing fields, dependencies')
    .option('--json', 'print the problems as JSON')
    .action(lazy(() => import('../commands/check.js')));

  program
    .command('demo')
    .description('run the main job end to end on a temporary home with a scripted agent')
    .option('--only <part>', 'run one part: watch (the reviewer under holon watch) or by-hand')
    .option('--keep', 'keep the temporary homes and print where they are')
    .option('--json', 'print the demo summary as JSON')
    .action(lazy(() => import('../commands/demo.js')));
}
