import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { makeOpsCtx } from '../../ops/context.js';
import { stopVerdict } from '../../ops/stop-hook.js';
import type { Ctx } from '../context.js';
import { note } from '../output.js';
import { writeOut } from '../stdout.js';

/** All of stdin; an interactive terminal gives none, and a writer that never closes is not waited on forever. */
function readStdin(boundMs = 10_000): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, boundMs);
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

type HookInput = { stop_hook_active?: unknown; cwd?: unknown; hook_event_name?: unknown };

/** Parses the Stop hook's JSON; null (with the reason on stderr) when it is not usable. */
function parseInput(text: string): HookInput | null {
  if (!text.trim()) {
    note('holon hook stop: no hook input on stdin (expected the Stop hook JSON of Claude Code); letting the stop through');
    return null;
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as HookInput;
    note('holon hook stop: the hook input is not a JSON object; letting the stop through');
  } catch (err) {
    note(`holon hook stop: the hook input is not valid JSON (${(err as Error).message}); letting the stop through`);
  }
  return null;
}

/**
 * `holon hook stop`: Claude Code's Stop hook. Prints {"decision":"block","reason":...} when the focus
 * is open with nothing to settle it; else prints nothing. Always exits 0: it must never break a session.
 */
export async function runStop(ctx: Ctx): Promise<void> {
  try {
    const input = parseInput(await readStdin());
    if (!input) return;
    if (typeof input.hook_event_name === 'string' && input.hook_event_name !== 'Stop') {
      return note(`holon hook stop: event ${input.hook_event_name} is not Stop; letting it through`);
    }
    const cwd = typeof input.cwd === 'string' && isAbsolute(input.cwd) && existsSync(input.cwd) ? input.cwd : ctx.cwd;
    const verdict = stopVerdict(makeOpsCtx(ctx.globals, ctx.env, cwd), { stopHookActive: input.stop_hook_active === true });
    if (verdict.block) {
      writeOut(JSON.stringify({ decision: 'block', reason: verdict.reason }) + '\n');
      return;
    }
    note(`holon hook stop: letting the stop through: ${verdict.why}`);
  } catch (err) {
    note(`holon hook stop: could not check the focus (${(err as Error)?.message ?? err}); letting the stop through`);
  }
}
