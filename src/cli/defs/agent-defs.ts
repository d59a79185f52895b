import type { Command } from 'commander';
import { lazy } from '../lazy.js';

/** Commands that connect interactive agent sessions (Claude Code, Codex) to holon. */
export function defineAgentCommands(program: Command): void {
  program
    .command('prime')
    .description('what an agent session starts with: role, focus with its resume context or a short frontier, the loop (for SessionStart hooks; exit 0 even outside a home)')
    .option('--json', 'print as JSON')
    .option('--hook-json', "print the text as a SessionStart hook's JSON (hookSpecificOutput.additionalContext), as Codex wants it")
    .action(lazy(() => import('../commands/prime.js')));

  const hook = program.command('hook').description('hooks that agent CLIs run');
  hook
    .command('stop')
    .description("Claude Code's Stop hook: reads its JSON on stdin; blocks the end of a turn while the focus is open with no active wait, no blocker and no delivery; always exits 0")
    .action(lazy(() => import('../commands/hook.js'), 'runStop'));

  const setup = program.command('setup').description('connect an agent CLI to holon in this project: hooks, instructions, MCP server');
  for (const [tool, what] of [
    ['claude', '.claude/settings.json hooks (SessionStart and PreCompact run `holon prime`, Stop runs `holon hook stop`), a managed section in CLAUDE.md, the MCP server in .mcp.json'],
    ['codex', '.codex/hooks.json hooks (SessionStart runs `holon prime --hook-json`, Stop runs `holon hook stop`), a managed section in AGENTS.md, the MCP server in .codex/config.toml'],
  ] as const) {
    setup
      .command(tool)
      .description(`merge (never clobber) ${what}; running it twice changes nothing`)
      .option('--dry-run', 'print the plan of changes and write nothing')
      .option('--remove', 'take out exactly what holon setup adds, keeping everything else')
      .option('--bin <command>', 'the command that runs holon in hooks and the MCP server (e.g. "npx holon")', 'holon')
      .option('--json', 'print the plan as JSON')
      .action(lazy(() => import('../commands/setup.js'), tool === 'claude' ? 'runClaude' : 'runCodex'));
  }

  program
    .command('mcp')
    .description('serve the loop as MCP tools over stdio (prime, frontier, pick, show, resume, new, progress, evidence, on_return, wait, settle_wait, complete, defer, block, claim, release), acting as the agent (--agent, $HOLON_AGENT) with agent authority')
    .action(lazy(() => import('../commands/mcp.js')));
}
