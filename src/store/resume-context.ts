import { buildResume, type ResumeContext } from '../core/resume.js';
import { iso } from '../core/time.js';
import { viewOf } from '../core/workitem.js';
import { readAgent } from './agents.js';
import { headCommit } from './git.js';
import type { Home } from './home.js';
import { loadListings } from './graph-index.js';
import { listKept } from './kept-listing.js';
import { readWorkFile, type WorkRef } from './work-store.js';
import { wakesFor } from './wakes.js';

/** The resume context of an item: what `holon resume` prints and the prompt watch gives a runner. */
export function resumeContextFor(home: Home, ref: WorkRef, nowMs: number): ResumeContext {
  const item = viewOf(readWorkFile(ref.file, ref.id));
  // The agent's other open items, from the graph cache the frontier keeps (its listing through the index
  // keeper where one runs): title, status, live waits and blocker are all a line needs, and reading
  // every record whole cost 1.3 s and some 250 MB at 50,000 items. In id order.
  const others = loadListings(home, listKept(home, [ref.agent])).items.filter((i) => i.status === 'open' && i.id !== ref.id);
  others.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let role = '';
  try {
    role = readAgent(home, ref.agent).role;
  } catch {
    role = '(AGENTS.md could not be read; run `holon check`)';
  }
  return buildResume({ agent: ref.agent, role, item, others, head: headCommit(home.root), wakes: wakesFor(home, ref.agent, item), nowIso: iso(nowMs) });
}
