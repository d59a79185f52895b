import { buildResume, renderResume } from '../../core/resume.js';
import { iso } from '../../core/time.js';
import { viewOf } from '../../core/workitem.js';
import { readAgent } from '../../store/agents.js';
import { headCommit } from '../../store/git.js';
import { loadAgentWork } from '../../store/work-index.js';
import { readWorkFile } from '../../store/work-store.js';
import { wakesFor } from '../../store/wakes.js';
import type { Ctx } from '../context.js';
import { printJson } from '../output.js';
import { targetItem } from '../work-args.js';

/** Builds the resume context of an item (also the prompt watch mode gives a runner). */
export function resumeContext(ctx: Ctx, id: string | undefined) {
  const home = ctx.home();
  const ref = targetItem(ctx, id);
  const item = viewOf(readWorkFile(ref.file, ref.id));
  const others = loadAgentWork(home, ref.agent).items.filter((i) => i.status === 'open' && i.id !== ref.id);
  let role = '';
  try {
    role = readAgent(home, ref.agent).role;
  } catch {
    role = '(AGENTS.md could not be read; run `holon check`)';
  }
  return buildResume({ agent: ref.agent, role, item, others, head: headCommit(home.root), wakes: wakesFor(home, ref.agent, item), nowIso: iso(ctx.nowMs) });
}

export function run(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  const r = resumeContext(ctx, args[0]);
  if (opts.json) return printJson(r);
  process.stdout.write(renderResume(r));
}
