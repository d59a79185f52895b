import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventsDir, readEventFile } from '../store/event-store.js';
import { fileKey } from '../store/cache-file.js';
import { readFocus } from '../store/focus.js';
import type { Home } from '../store/home.js';
import { readRecordText } from '../store/record-file.js';
import { readTimerFile, timerFile } from '../store/timers.js';
import { loadAgentWork } from '../store/work-index.js';
import type { Wake } from './tick.js';

/** What one admitted event file gives: the fire of a timer that triggered no wait, or nothing. */
type Fire = { timer: string; event: string; work_item: string | null } | null;

/** Per events folder: its key when last listed, and each file read once (event records never change). */
const seen = new Map<string, { key: string | null; racy: boolean; fires: Map<string, Fire> }>();

function fireOf(home: Home, agent: string, file: string): Fire {
  try {
    if (!readRecordText(file).includes('source: "timer"')) return null;
    const ev = readEventFile(file);
    if (ev.source !== 'timer' || ev.status !== 'admitted' || ev.disposition?.triggered.length) return null;
    const timer = ev.resource.startsWith('timer:') ? ev.resource.slice('timer:'.length) : null;
    if (!timer) return null;
    return { timer, event: ev.id, work_item: readTimerFile(timerFile(home, agent, timer), timer).work_item };
  } catch {
    return null;
  }
}

/**
 * Fires of timers that woke no wait (`timer add --work X`, or the focus) that no run has handled,
 * read from the admitted events, so a watcher killed between a fire and its run still runs it after
 * a restart. A fire that triggered a wait is the wait's reason (pendingWakes). Each event file is read
 * once per process, and a folder whose key did not change is not listed again.
 */
export function firedTimerWakes(home: Home, agents: string[], coveredKeys: Set<string>): Wake[] {
  const wakes: Wake[] = [];
  for (const agent of agents) {
    const dir = eventsDir(home, agent);
    let s = seen.get(dir);
    if (!s) seen.set(dir, (s = { key: null, racy: true, fires: new Map() }));
    const key = fileKey(dir);
    if (key !== s.key || s.racy) {
      s.key = key;
      // As git's racy-clean rule: a folder changed within the last 2 s may change again under the same key.
      s.racy = !key || Date.now() - Number(key.split(':')[2]) < 2000;
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        // no events yet
      }
      for (const name of names) if (name.endsWith('.yaml') && !s.fires.has(name)) s.fires.set(name, fireOf(home, agent, join(dir, name)));
    }
    const open = [...s.fires.values()].filter((f): f is NonNullable<Fire> => f !== null && !coveredKeys.has(`event:${f.event}`));
    if (!open.length) continue;
    const closed = new Set(loadAgentWork(home, agent).items.filter((i) => i.status === 'done' || i.status === 'deferred').map((i) => i.id));
    for (const f of open) {
      const item = f.work_item ?? readFocus(home, agent).work_item;
      if (!item || closed.has(item)) continue;
      wakes.push({ agent, work_item: f.work_item, reason: 'timer_fired', timer: f.timer, event: f.event });
    }
  }
  return wakes;
}
