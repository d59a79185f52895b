import { buildResume, type ResumeContext } from '../core/resume.js';
import { iso } from '../core/time.js';
import { viewOf } from '../core/workitem.js';
import { readAgent } from './agents.js';
import { headCommit } from './git.js';
import type { Home } from './home.js';
import { loadAgentWork } from './work-index.js';
import { readWorkFile, type WorkRef } from './work-store.js';
import { wakesFor } from './wakes.js';

/** The resume context of an item: what `holon resume` prints and the prompt watch gives a runner. */
export function resumeContextFor(home: Home, ref: WorkRef, nowMs: number): ResumeContext {
  const item = viewOf(readWorkFile(ref.file, ref.id));
  const others = loadAgentWork(home, ref.agent).items.filter((i) => i.status === 'open' && i.id !== ref.id);
  let role = '';
  try {
    role = readAgent(home, ref.agent).role;
  } catch {
    role = '(AGENTS.md could not be read; run `holon check`)';
  }
  return buildResume({ agent: ref.agent, role, item, others, head: headCommit(home.root), wakes: wakesFor(home, ref.agent, item), nowIso: iso(nowMs) });
}
