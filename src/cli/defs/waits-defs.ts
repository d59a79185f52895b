import type { Command } from 'commander';
import { collect, lazy } from '../lazy.js';

/** Waits, tasks, events, timers, tick, and the honest exits of a WorkItem (complete, supersede, defer, block, reopen). */
export function defineWaitCommands(program: Command): void {
  program
    .command('wait')
    .argument('[id]', 'WorkItem id (default: the focus)')
    .description('record what an item waits for: task:HANDLE, timer:ID (or timer --in/--at), external:RESOURCE, operator')
    .option('--for <kind:resource>', 'what it waits for, e.g. external:ci:run/7731, task:k-4f2a9c1k, timer --in 2h, operator')
    .option('--reason <text>', 'why the item waits (shown in resume)')
    .option('--recheck <when>', 'fallback recheck deadline: a duration (6h) or an ISO time; default holon.yaml default_recheck')
    .option('--in <duration>', 'with --for timer: create a timer due in this long and wait on it')
    .option('--at <iso>', 'with --for timer: create a timer due at this time and wait on it')
    .option('--cancel <waitId>', 'cancel a wait (settled_reason cancelled)')
    .option('--resolve <waitId>', 'mark a triggered wait as handled')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('../commands/wait.js')));

  const task = program.command('task').description('background commands whose results wake waits (task:HANDLE)');
  task
    .command('run')
    .usage('[--work ID] [--json] -- <command...>')
    .argument('<command...>', 'the command and its arguments, after -- (options of task run go before it)')
    .description('start a command in the background (it survives the terminal); prints its handle k-... at once')
    .option('--work <id>', 'the WorkItem the task is for')
    .option('--json', 'print the task record as JSON')
    .action(lazy(() => import('../commands/task.js'), 'runTaskRun'));
  task
    .command('list')
    .description('tasks started on this machine, with their status and exit code')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/task.js'), 'runTaskList'));
  task
    .command('show')
    .argument('<handle>', 'task handle k-... (or a unique prefix)')
    .description('one task: command, status, exit code, output tail')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/task.js'), 'runTaskShow'));

  program
    .command('notify')
    .argument('<resource>', 'what changed, e.g. ci:run/7731 (an external resource), or task:/timer:/external: prefixed')
    .description('deliver an event (for CI scripts): triggers the active waits on exactly this resource')
    .option('--work <id>', 'the event concerns only this WorkItem (it never settles another item\'s wait)')
    .option('--mode <mode>', 'wake_hint (recheck the outside state; payload not shown) or message (payload queued)', 'wake_hint')
    .option('--source <name>', 'external, or agent (an agent\'s own follow-up)', 'external')
    .option('--payload <text|@file>', 'payload text, or @FILE to read it from a file (64 KiB at most)')
    .option('--json', 'print the event and its disposition as JSON')
    .action(lazy(() => import('../commands/events.js'), 'runNotify'));
  program
    .command('tell')
    .argument('<text...>', 'the message')
    .description('a person\'s message to the agent (source operator; it triggers operator waits)')
    .option('--work <id>', 'the message concerns only this WorkItem')
    .option('--json', 'print the event and its disposition as JSON')
    .action(lazy(() => import('../commands/events.js'), 'runTell'));
  program
    .command('inbox')
    .description('events queued for the agent (not yet admitted); --all adds admitted ones')
    .option('--all', 'also the admitted events, with their disposition')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/events.js'), 'runInbox'));

  const timer = program.command('timer').description('one-shot and repeating timers (one file each in timers/)');
  timer
    .command('add')
    .description('create a timer; creating one never pauses anything (use `holon wait --for timer:ID` to wait on it)')
    .option('--in <duration>', 'due this long from now, e.g. 90s, 2h')
    .option('--at <iso>', 'due at this time, e.g. 2026-11-30T17:00:00Z')
    .option('--every <duration>', 'repeat on this period (the schedule stays on its grid)')
    .option('--until <iso>', 'with --every: no fire after this time')
    .option('--work <id>', 'the WorkItem the timer is for')
    .option('--summary <text>', 'what the timer is for')
    .option('--json', 'print the timer as JSON')
    .action(lazy(() => import('../commands/timer.js'), 'runTimerAdd'));
  timer
    .command('list')
    .description('active timers (--all adds fired and cancelled ones)')
    .option('--all', 'also fired and cancelled timers')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/timer.js'), 'runTimerList'));
  timer
    .command('cancel')
    .argument('<id>', 'timer id or unique prefix')
    .description('cancel a timer (idempotent); waits on it settle timer_cancelled and their items are blocked')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('../commands/timer.js'), 'runTimerCancel'));

  program
    .command('tick')
    .description('one pass of the runtime: finished tasks, due timers, queued events, expired rechecks; then exit (all agents, or only --agent\'s)')
    .option('--json', 'print the report as JSON')
    .action(lazy(() => import('../commands/tick.js')));

  program
    .command('complete')
    .argument('[id]', 'WorkItem id (default: the focus)')
    .description('complete with delivery: result, evidence, outstanding, and a successor or --no-followup')
    .option('--result <text>', 'what was delivered')
    .option('--evidence <text>', 'what proves the objective was met (repeatable; default: the ## Evidence entries)', collect)
    .option('--outstanding <text>', 'a matter still open (repeatable; needs --successor)', collect)
    .option('--successor <id>', 'the item that carries on (repeatable)', collect)
    .option('--no-followup <reason>', 'why nothing follows')
    .option('--json', 'print the updated WorkItem as JSON')
    .action(lazy(() => import('../commands/lifecycle.js'), 'runComplete'));
  program
    .command('supersede')
    .argument('<id>', 'the item being replaced')
    .description('replace an item by another: done, superseded_by kept, its waits cancelled')
    .requiredOption('--by <id>', 'the replacing item')
    .requiredOption('--reason <text>', 'why')
    .option('--json', 'print the updated WorkItem as JSON')
    .action(lazy(() => import('../commands/lifecycle.js'), 'runSupersede'));
  program
    .command('defer')
    .argument('<id>', 'WorkItem id')
    .description('defer an item until a resume condition holds (status deferred, resume_when)')
    .option('--until <iso>', 'resume at this time (resume_when at:ISO)')
    .option('--when <cond>', 'at:ISO, done:ID, event:RESOURCE or capability:NAME (repeatable)', collect)
    .requiredOption('--reason <text>', 'why')
    .option('--json', 'print the updated WorkItem as JSON')
    .action(lazy(() => import('../commands/lifecycle.js'), 'runDefer'));
  program
    .command('block')
    .argument('<id>', 'WorkItem id')
    .description('set the business blocker (status blocked); a wake does not clear it')
    .requiredOption('--reason <text>', 'what blocks the work')
    .requiredOption('--recovery <text>', 'how it can be unblocked, and by whom')
    .option('--json', 'print the updated WorkItem as JSON')
    .action(lazy(() => import('../commands/lifecycle.js'), 'runBlock'));
  program
    .command('reopen')
    .argument('<id>', 'WorkItem id')
    .description('back to open: clears the blocker and resume conditions (kept in ## History)')
    .option('--reason <text>', 'why it is reopened')
    .option('--json', 'print the updated WorkItem as JSON')
    .action(lazy(() => import('../commands/lifecycle.js'), 'runReopen'));
}
