import { renderResume } from '../../core/resume.js';
import { resume } from '../../ops/resume.js';
import type { Ctx } from '../context.js';
import { printJson } from '../output.js';
import { targetItem } from '../work-args.js';
import { writeOut } from '../stdout.js';

/** Builds the resume context of an item (also the prompt watch mode gives a runner). */
export function resumeContext(ctx: Ctx, id: string | undefined) {
  return resume(ctx, targetItem(ctx, id));
}

export function run(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  const r = resumeContext(ctx, args[0]);
  if (opts.json) return printJson(r);
  writeOut(renderResume(r));
}
