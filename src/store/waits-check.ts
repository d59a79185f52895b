import type { RecordProblem } from '../core/record-codec.js';
import type { Home } from './home.js';
import { listTimers, timerFile } from './timers.js';
import type { LoadedWork } from './work-index.js';

/**
 * References between waits, timers and items that no single record can check: an active wait on a
 * timer that does not exist (it would wait until its recheck deadline for nothing), or an active
 * timer for an item that does not exist.
 */
export function checkWaitReferences(home: Home, agents: string[], loaded: LoadedWork): RecordProblem[] {
  const problems: RecordProblem[] = [];
  const timers = new Map<string, string>();
  for (const a of agents) for (const t of listTimers(home, a).timers) timers.set(t.id, a);
  const items = new Set(loaded.items.map((i) => i.id));
  loaded.items.forEach((item, n) => {
    for (const w of item.waits) {
      if (w.status !== 'active' || w.kind !== 'timer') continue;
      const fix = `cancel it (holon wait --cancel ${w.id}) and wait on a new timer (holon wait ${item.id} --for timer --in 2h --reason ...)`;
      const owner = timers.get(w.resource);
      if (!owner) problems.push({ file: loaded.files[n], line: 1, message: `wait ${w.id} waits on timer ${w.resource}, which does not exist`, fix });
      // A fire is queued for the timer's own agent: a wait of another agent's item never sees it.
      else if (owner !== item.agent) problems.push({ file: loaded.files[n], line: 1, message: `wait ${w.id} waits on timer ${w.resource} of agent "${owner}": its fire never reaches agent "${item.agent}"`, fix });
    }
  });
  for (const a of agents) {
    for (const t of listTimers(home, a).timers) {
      if (t.status === 'active' && t.work_item && !items.has(t.work_item)) {
        problems.push({ file: timerFile(home, a, t.id), line: 1, message: `active timer ${t.id} is for WorkItem ${t.work_item}, which does not exist`, fix: `cancel it (holon timer cancel ${t.id}) or restore the item` });
      }
    }
  }
  return problems;
}
