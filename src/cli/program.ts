import { Command } from 'commander';
import { VERSION } from '../version.js';
import { lazy } from './lazy.js';
import { defineWorkCommands } from './defs/work-defs.js';
import { defineWatchCommands } from './defs/watch-defs.js';
import { defineWaitCommands } from './defs/waits-defs.js';
import { defineFrontierCommands } from './defs/frontier-defs.js';
import { defineAgentCommands } from './defs/agent-defs.js';
import { defineThreadCommands } from './defs/thread-defs.js';
import { defineSyncCommands } from './defs/sync-defs.js';

/** The command tree. Definitions are cheap; each handler module is imported only when its command runs. */
export function buildProgram(): Command {
  const program = new Command('holon')
    .description('keep the work of coding agents alive across turns, days and machines')
    .version(VERSION, '-V, --version')
    .option('--home <dir>', 'the .holon folder (or a folder containing one); default: found walking up, or $HOLON_HOME')
    .option('--agent <name>', 'the agent to act as; default: $HOLON_AGENT, holon.yaml default_agent, or the only agent')
    .showSuggestionAfterError(true)
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  defineWorkCommands(program);
  defineWatchCommands(program);
  defineWaitCommands(program);
  defineFrontierCommands(program);
  defineAgentCommands(program);
  defineThreadCommands(program);
  defineSyncCommands(program);
  program
    .command('completion')
    .argument('<shell>', 'bash, zsh or fish')
    .description('print a shell completion script: source <(holon completion bash)')
    .action(lazy(() => import('./commands/completion.js')));
  groupCommands(program);
  configureErrors(program);
  return program;
}

/** `holon --help` lists the commands by topic. */
const GROUPS: Array<[string, string[]]> = [
  ['Home and agents:', ['init', 'agent', 'check', 'capabilities', 'demo']],
  ['WorkItems:', ['new', 'list', 'show', 'pick', 'progress', 'evidence', 'on-return', 'resume', 'edit', 'complete', 'supersede', 'defer', 'block', 'reopen']],
  ['Waits, events and timers:', ['wait', 'task', 'notify', 'tell', 'inbox', 'timer', 'tick']],
  ['Frontier, decisions and claims:', ['frontier', 'explain', 'decide', 'claim', 'renew', 'release', 'transfer']],
  ['Watch mode:', ['watch', 'runs', 'ingress']],
];

function groupCommands(program: Command): void {
  const heading = new Map(GROUPS.flatMap(([h, names]) => names.map((n) => [n, h] as const)));
  for (const c of program.commands) c.helpGroup(heading.get(c.name()) ?? 'Other:');
  program.commandsGroup('Other:');
}

/** Applies exit-code handling to a command and all its subcommands. */
export function configureErrors(cmd: Command, path: string[] = []): void {
  const name = [...path, cmd.name()].join(' ');
  cmd.exitOverride((err) => {
    throw Object.assign(err, { usageLine: `usage: ${name} ${cmd.usage()}` });
  });
  for (const sub of cmd.commands) configureErrors(sub, [...path, cmd.name()]);
}
