import { renderNoHome, renderPrime } from '../../core/prime.js';
import { prime } from '../../ops/prime.js';
import type { Ctx } from '../context.js';
import { printJson } from '../output.js';
import { writeOut } from '../stdout.js';

/** `holon prime`: what a session starts with. Exit 0 in a home whatever its state, and outside one. */
export async function run(ctx: Ctx, _args: string[], opts: { json?: boolean; hookJson?: boolean }): Promise<void> {
  const r = await prime(ctx);
  if (opts.json) return printJson(r);
  const text = r.home ? renderPrime(r) : renderNoHome(r.message);
  // Codex validates a SessionStart hook's stdout as JSON; Claude Code accepts the same shape.
  if (opts.hookJson) return void writeOut(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } }) + '\n');
  writeOut(text);
}
