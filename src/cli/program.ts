import { Command } from 'commander';
import { VERSION } from '../version.js';
import { lazy } from './lazy.js';
import { writeErr, writeOut } from './stdout.js';
import { commandWord } from './command-word.js';
import { defineWorkCommands } from './defs/work-defs.js';
import { defineWatchCommands } from './defs/watch-defs.js';
import { defineWaitCommands } from './defs/waits-defs.js';
import { defineFrontierCommands } from './defs/frontier-defs.js';
import { defineAgentCommands } from './defs/agent-defs.js';
import { defineThreadCommands } from './defs/thread-defs.js';
import { defineSyncCommands } from './defs/sync-defs.js';

/** The definition groups, in the order the full tree defines them (`agent` and `setup` span two). */
const DEFINES = {
  work: defineWorkCommands,
  watch: defineWatchCommands,
  wait: defineWaitCommands,
  frontier: defineFrontierCommands,
  agent: defineAgentCommands,
  thread: defineThreadCommands,
  sync: defineSyncCommands,
} as const;
type Group = keyof typeof DEFINES;

/**
 * The groups that define each top-level command. With it, `holon show` defines only the work commands:
 * defining all ~60 costs more than `show` itself. A command missing here (a new one) makes the full tree,
 * so it still works; test/cli/program-lazy.test.ts checks each listed command's tree is the full one's.
 */
export const COMMAND_GROUPS: Record<string, Group[]> = {
  init: ['work'], agent: ['work', 'watch'], new: ['work'], list: ['work'], show: ['work'], pick: ['work'], progress: ['work'], evidence: ['work'],
  'on-return': ['work'], resume: ['work'], check: ['work'], demo: ['work'], watch: ['watch'], runs: ['watch'], dash: ['watch'], ingress: ['watch'],
  wait: ['wait'], task: ['wait'], notify: ['wait'], tell: ['wait'], inbox: ['wait'], timer: ['wait'], tick: ['wait'], complete: ['wait'],
  supersede: ['wait'], defer: ['wait'], block: ['wait'], reopen: ['wait'], frontier: ['frontier'], explain: ['frontier'], decide: ['frontier'],
  claim: ['frontier'], renew: ['frontier'], release: ['frontier'], transfer: ['frontier'], edit: ['frontier'], capabilities: ['frontier'],
  prime: ['agent'], hook: ['agent'], setup: ['agent', 'sync'], mcp: ['agent'], thread: ['thread'], sync: ['sync'], 'merge-file': ['sync'],
};

/**
 * The command tree. Definitions are cheap; each handler module is imported only when its command runs.
 * With `argv`, only the groups its command needs (see COMMAND_GROUPS); without, or for anything else
 * (help, unknown words, a new command), the whole tree.
 */
export function buildProgram(argv?: string[]): Command {
  const program = new Command('holon')
    .description('keep the work of coding agents alive across turns, days and machines')
    .version(VERSION, '-V, --version')
    .option('--home <dir>', 'the .holon folder (or a folder containing one); default: found walking up, or $HOLON_HOME')
    .option('--agent <name>', 'the agent to act as; default: $HOLON_AGENT, holon.yaml default_agent, or the only agent')
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut, writeErr });
  const word = argv ? commandWord(argv) : null;
  const only = word && word !== 'completion' && Object.prototype.hasOwnProperty.call(COMMAND_GROUPS, word) ? COMMAND_GROUPS[word] : null;
  const target = only ? onlyCommand(program, word!) : program;
  for (const [group, define] of Object.entries(DEFINES)) if (!only || only.includes(group as Group)) define(target);
  program
    .command('completion')
    .argument('<shell>', 'bash, zsh or fish')
    .description('print a shell completion script: source <(holon completion bash)')
    .action(lazy(() => import('./commands/completion.js')));
  groupCommands(program);
  configureErrors(program);
  return program;
}

/**
 * The program as a definition group sees it when only `word` runs: its other top-level commands are
 * a stand-in that takes any chain of calls (`.option(...)`, `.action(...)`, subcommands) and defines
 * nothing. A group defines up to 15 commands, and their options cost `pick` or `wait` some 0.5-1 ms.
 */
function onlyCommand(program: Command, word: string): Command {
  const skip: unknown = new Proxy(() => skip, { get: () => skip, apply: () => skip });
  return new Proxy(program, {
    get(target, key, receiver) {
      if (key !== 'command') return Reflect.get(target, key, receiver);
      return (nameAndArgs: string, ...rest: unknown[]) =>
        nameAndArgs.trim().split(/\s+/, 1)[0] === word ? Reflect.apply(target.command, target, [nameAndArgs, ...rest]) : skip;
    },
  });
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
