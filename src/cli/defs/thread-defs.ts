import type { Command } from 'commander';
import { collect, lazy } from '../lazy.js';

/** Work threads (SPEC section 8): a persistent child agent resumed one bounded command at a time. */
export function defineThreadCommands(program: Command): void {
  const thread = program.command('thread').description('persistent work threads: one child agent, one bounded command at a time (create, send, inspect, list, compact, close)');
  const load = () => import('../commands/thread.js');
  thread
    .command('create')
    .description('create a thread with a role and a policy (runner, model, tools, write scope, context policy); prints its id th-...')
    .requiredOption('--role <text>', 'what the thread is responsible for, e.g. "grid contract specialist"')
    .option('--runner <name>', 'command, claude or codex (default: command when --command is given, else claude)')
    .option('--command <cmd>', 'with --runner command: the shell command that gets one JSON object on stdin and prints a CommandResult; with claude/codex: the executable')
    .option('--model <model>', 'the model the child uses (claude --model, codex -m)')
    .option('--scope <glob>', 'write scope of the thread, repeatable (e.g. "src/grid/**"); changes outside it are reported', collect)
    .option('--tool <tool>', 'a tool the child may use, repeatable (claude --allowedTools)', collect)
    .option('--context-policy <policy>', 'what the child is given of earlier commands: full, summaries or none', 'full')
    .option('--work <id>', 'the WorkItem the thread works for')
    .option('--json', 'print the thread as JSON')
    .action(lazy(load, 'runCreate'));
  thread
    .command('send')
    .argument('<id>', 'thread id th-... (or a unique prefix)')
    .description('send one bounded command; it runs in the background (or in the foreground with --wait); refused while another runs')
    .requiredOption('--objective <text>', 'what the child must do, and only that')
    .option('--scope <glob>', 'write scope of this command, within the thread\'s (repeatable)', collect)
    .option('--constraint <text>', 'a constraint the child must keep (repeatable)', collect)
    .option('--context-ref <path>', 'a file the child should read first, relative to the checkout (repeatable)', collect)
    .option('--expect <text>', 'the result the parent expects')
    .option('--wait', 'run in the foreground and print the result (exit 3 when the result is failed)')
    .option('--json', 'print the command (with --wait: its result) as JSON')
    .action(lazy(load, 'runSend'));
  thread
    .command('inspect')
    .argument('<id>', 'thread id th-... (or a unique prefix)')
    .description('state, active command, last result, checkpoint, policy, token totals, command history')
    .option('--json', 'print as JSON')
    .action(lazy(load, 'runInspect'));
  thread
    .command('list')
    .description('threads of every agent (closed ones with --all)')
    .option('--all', 'also closed threads')
    .option('--json', 'print as JSON')
    .action(lazy(load, 'runList'));
  thread
    .command('compact')
    .argument('<id>', 'thread id th-... (or a unique prefix)')
    .description('write a durable checkpoint (asked of the child when no text is given); the next command starts a fresh session from it')
    .option('--checkpoint <text>', 'the checkpoint text, written by the parent')
    .option('--json', 'print the thread and checkpoint as JSON')
    .action(lazy(load, 'runCompact'));
  thread
    .command('close')
    .argument('<id>', 'thread id th-... (or a unique prefix)')
    .description('close the thread for good: later sends are refused; nothing is deleted')
    .option('--reason <text>', 'why it is closed')
    .option('--json', 'print the thread as JSON')
    .action(lazy(load, 'runClose'));
}
