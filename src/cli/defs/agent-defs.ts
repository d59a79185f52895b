import type { Command } from 'commander';
import { lazy } from '../lazy.js';

/** Commands that connect interactive agent sessions (Claude Code, Codex) to holon. */
export function defineAgentCommands(program: Command): void {
  program
    .command('prime')
    .description('what an agent session starts with: role, focus with its resume context or a short frontier, the loop (for SessionStart hooks; exit 0 even outside a home)')
    .option('--json', 'print as JSON')
    .action(lazy(() => import('../commands/prime.js')));

  const hook = program.command('hook').description('hooks that agent CLIs run');
  hook
    .command('stop')
    .description("Claude Code's Stop hook: reads its JSON on stdin; blocks the end of a turn while the focus is open with no active wait, no blocker and no delivery; always exits 0")
    .action(lazy(() => import('../commands/hook.js'), 'runStop'));
}
