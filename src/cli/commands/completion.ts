import type { Command } from 'commander';
import { usage } from '../../core/errors.js';
import { completionScript, SHELLS, type CompletionNode, type Shell } from '../completion.js';
import type { Ctx } from '../context.js';
import { buildProgram } from '../program.js';
import { writeOut } from '../stdout.js';

function tree(cmd: Command): CompletionNode {
  return { name: cmd.name(), options: cmd.options.map((o) => o.long).filter((l): l is string => Boolean(l)), commands: cmd.commands.map(tree) };
}

/** `holon completion bash|zsh|fish`: prints the completion script for the shell. */
export function run(_ctx: Ctx, args: string[]): void {
  const shell = args[0];
  if (!SHELLS.includes(shell as Shell)) throw usage(`no completion for "${shell}"`, `use one of ${SHELLS.join(', ')}: source <(holon completion bash)`);
  writeOut(completionScript(shell as Shell, tree(buildProgram())));
}
