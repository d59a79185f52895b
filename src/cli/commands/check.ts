import { relPath } from '../render.js';
import { checkHome } from '../../store/home-check.js';
import { openHomeLenient } from '../../store/home.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';

/** Validates the home for CI: exit 3 with one line per problem (file:line: what — fix). */
export function run(ctx: Ctx, _args: string[], opts: { json?: boolean }): void {
  // A broken holon.yaml stops every other command; check opens the home anyway and reports it.
  const home = openHomeLenient({ home: ctx.globals.home, cwd: ctx.cwd, env: ctx.env });
  const problems = checkHome(home).map((p) => ({ ...p, file: relPath(ctx.cwd, p.file) }));
  if (opts.json) printJson({ ok: problems.length === 0, problems });
  else if (!problems.length) out(`ok: ${relPath(ctx.cwd, home.dir)} has no problems`);
  else {
    for (const p of problems) out(`${p.file}:${p.line}: ${p.message} — fix: ${p.fix.split('\n').join(' / ')}`);
    note(`${problems.length} problem(s)`);
  }
  if (problems.length) process.exitCode = 3;
}
