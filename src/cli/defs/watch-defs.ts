import type { Command } from 'commander';
import { lazy } from '../lazy.js';

/** Watch mode: the loop, its runs, the dashboard, capability-URL ingress, and stopping/starting agents. */
export function defineWatchCommands(program: Command): void {
  program
    .command('watch')
    .description('fire timers, admit events and resume agents for a reason, until stopped (one watcher per home)')
    .option('--listen [host:port]', 'serve HTTP ingress on loopback (default address: holon.yaml ingress.listen; port 0 picks a free one)')
    .option('--once', 'do one pass, wait for the runs it started, and exit (for CI cron jobs)')
    .option('--json', 'with --once: print the runs as JSON')
    .option('--sync <every>', 'several machines: sync the home this often (e.g. 30s) and after each run; run only the agents whose watch lease this watcher holds')
    .addHelpText('after', '\nWatch only one agent with the global --agent NAME. Logs go to stderr; run records to .holon/local/runs/.')
    .action(lazy(() => import('../commands/watch.js')));

  program
    .command('index')
    .description('keep the work index warm until stopped, so `holon frontier` stats only the files that changed, and compute the frontier of each agent again after a change (holon watch does this too; Linux)')
    .option('--status', 'say whether a keeper serves this home, and exit')
    .option('--stop', 'stop the keeper of this home (one that `holon index` runs, or a command started), and exit')
    .option('--idle-exit <duration>', 'stop after this long without a question (e.g. 1h; a keeper a command starts by itself uses 1h)')
    .option('--json', 'with --status: print {keeper: {pid, started_at, req, idle_exit_ms, start} | null}; with --stop: {stopped: pid | null}')
    .addHelpText('after', '\nWithout a keeper every command stats each work file; the answers are the same either way. On Linux, a command that had to stat every one of 2,000 work files or more (frontier, pick, resume, prime) starts a keeper by itself, with --idle-exit 1h; not under CI, with HOLON_INDEX_AUTO=0, or within 10 minutes of the last start. See docs/frontier.md, "The index keeper".')
    .action(lazy(() => import('../commands/keep-index.js')));

  const runs = program
    .command('runs')
    .description('list the runs holon watch started: reason, status, cause, tokens, cost, and totals per agent (narrow with --agent)')
    .option('--work <id>', 'only runs on this WorkItem (id or prefix)')
    .option('--limit <n>', 'only the last n runs')
    .option('--json', 'print {runs, totals} as JSON')
    .action(lazy(() => import('../commands/runs.js')));
  runs
    .command('show')
    .argument('<run>', 'run id (r-...) or a unique prefix of one')
    .description("one run's record (status, cause, problems, wakes, tokens) and the tail of its log (local/runs/<id>.log)")
    .option('--json', 'print {run, log: {file, size, truncated, tail}} as JSON')
    .action(lazy(() => import('../commands/runs.js'), 'runShow'));

  program
    .command('dash')
    .description('a live terminal view of every agent: state, frontier, waits, timers, the live run, events; keys to decide gates, tell, reopen')
    .option('--once', 'print one frame as plain text and exit (also when stdout is not a terminal)')
    .option('--json', 'print the view model (what the frame shows) as JSON and exit')
    .addHelpText('after', '\nShow only one agent with the global --agent NAME. Keys are listed on the help line; see docs/dash.md.')
    .action(lazy(() => import('../commands/dash.js')));

  const ingress = program.command('ingress').description("manage the agent's capability URL for HTTP ingress (POST /hooks/<token>)");
  ingress
    .command('show')
    .description('is there a live capability URL for the agent, since when, and when it was last used (never the token)')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/ingress.js'), 'runShow'));
  ingress
    .command('url')
    .description('create the agent\'s ingress token and print its URL (shown once; refused if one exists: rotate)')
    .option('--json', 'print {agent, token_id, url, created_at} as JSON')
    .action(lazy(() => import('../commands/ingress.js'), 'runUrl'));
  ingress
    .command('rotate')
    .description('replace the agent\'s token: the old URL gets 403 at once; prints the new URL')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/ingress.js'), 'runRotate'));
  ingress
    .command('revoke')
    .description('remove the agent\'s token: its URL gets 403')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/ingress.js'), 'runRevoke'));

  const agent = program.commands.find((c) => c.name() === 'agent') ?? program.command('agent').description('manage the agents of this home');
  agent
    .command('stop')
    .argument('<name>', 'agent name')
    .description('stop an agent here: revoke its ingress tokens; the watcher starts no runs for it')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/ingress.js'), 'runAgentStop'));
  agent
    .command('start')
    .argument('<name>', 'agent name')
    .description('undo `holon agent stop`: the watcher may run the agent again')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/ingress.js'), 'runAgentStart'));
}
