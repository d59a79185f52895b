import type { RecordProblem } from '../core/record-codec.js';
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Home } from './home.js';
import { taskFile } from './tasks.js';
import { listTimers, timerFile } from './timers.js';
import type { LoadedWork } from './work-index.js';

/**
 * References between waits, timers and items that no single record can check: an active wait on a
 * timer or task that does not exist (it would wait until its recheck deadline for nothing), an active
 * timer for an item that does not exist or is done, a done item with a live wait (what a `complete`
 * killed half-way leaves: `holon tick` repairs both), and a record in another agent's folder.
 */
export function checkWaitReferences(home: Home, agents: string[], loaded: LoadedWork): RecordProblem[] {
  const problems: RecordProblem[] = [];
  const timers = new Map<string, string>();
  for (const a of agents) for (const t of listTimers(home, a).timers) timers.set(t.id, a);
  const items = new Set(loaded.items.map((i) => i.id));
  const done = new Set(loaded.items.filter((i) => i.status === 'done').map((i) => i.id));
  const waitedOn = new Set<string>();
  const copies = new Map<string, number>();
  for (const i of loaded.items) copies.set(i.id, (copies.get(i.id) ?? 0) + 1);
  loaded.items.forEach((item, n) => {
    const folder = basename(dirname(dirname(loaded.files[n])));
    // A copy in a second folder is reported once, as a duplicate id.
    if (item.agent && item.agent !== folder && copies.get(item.id) === 1) {
      problems.push({ file: loaded.files[n], line: 1, message: `WorkItem of agent "${item.agent}" in agent "${folder}"'s folder: its waits, timers and events never meet`, fix: `move it to agents/${item.agent}/work/, or set agent: "${folder}"` });
    }
    const live = item.waits.filter((w) => w.status === 'active' || w.status === 'triggered');
    if (item.status === 'done' && live.length) {
      problems.push({ file: loaded.files[n], line: 1, message: `done WorkItem has live wait ${live.map((w) => w.id).join(', ')} (a complete or supersede cut short?)`, fix: 'run `holon tick`: it settles the waits of done items' });
    }
    for (const w of item.waits) {
      if (w.status === 'active' && w.kind === 'timer' && item.status !== 'done') waitedOn.add(w.resource);
      if (w.status === 'active' && w.kind === 'task' && /^k-[0-9a-z]+$/.test(w.resource) && !existsSync(taskFile(home, w.resource))) {
        problems.push({ file: loaded.files[n], line: 1, message: `wait ${w.id} waits on task ${w.resource}, which does not exist here`, fix: `cancel it (holon wait --cancel ${w.id}) and start the task again (holon task run --work ${item.id} -- CMD)` });
      }
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
      const file = timerFile(home, a, t.id);
      if (t.agent && t.agent !== a) problems.push({ file, line: 1, message: `timer of agent "${t.agent}" in agent "${a}"'s folder`, fix: `move it to agents/${t.agent}/timers/, or set agent: "${a}"` });
      if (t.status === 'active' && t.work_item && !items.has(t.work_item)) {
        problems.push({ file, line: 1, message: `active timer ${t.id} is for WorkItem ${t.work_item}, which does not exist`, fix: `cancel it (holon timer cancel ${t.id}) or restore the item` });
      } else if (t.status === 'active' && t.work_item && done.has(t.work_item) && !waitedOn.has(t.id)) {
        problems.push({ file, line: 1, message: `active timer ${t.id} is for WorkItem ${t.work_item}, which is done: it fires for nothing (a complete or supersede cut short?)`, fix: `run \`holon tick\` (it cancels the timers of done items), or holon timer cancel ${t.id}` });
      }
    }
  }
  return problems;
}
