import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventsDir, readEventFile } from './event-store.js';
import type { Home } from './home.js';

/**
 * An admitted operator message that triggered no wait (it only nudged its agent), or an event of any
 * source that joined the pending wake of a wait triggered earlier (`wait` set).
 */
export interface OperatorNudge {
  agent: string;
  event: string;
  work_item: string | null;
  wait?: string;
  source?: string;
  /** When it was admitted (ISO, whole seconds), or null. */
  admitted_at: string | null;
}

/**
 * New operator nudges among an agent's admitted events (agents/A/events/): `holon tell` admits its
 * event at once in its own process, so the watcher learns of it from the file. `seen` holds the file
 * names already read, so each event file is read once per watcher.
 */
export function newOperatorNudges(home: Home, agent: string, seen: Set<string>): OperatorNudge[] {
  const dir = eventsDir(home, agent);
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  } catch {
    return [];
  }
  const out: OperatorNudge[] = [];
  for (const f of names) {
    const key = `${agent}/${f}`;
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      const ev = readEventFile(join(dir, f));
      if (ev.status !== 'admitted') continue;
      for (const j of ev.disposition?.joined ?? []) out.push({ agent, event: ev.id, work_item: j.work_item, wait: j.wait, source: ev.source, admitted_at: ev.admitted_at });
      if (ev.source !== 'operator' || ev.disposition?.triggered.length || ev.disposition?.joined?.length) continue;
      out.push({ agent, event: ev.id, work_item: ev.work_item, admitted_at: ev.admitted_at });
    } catch {
      // A broken record is `holon check`'s to report.
    }
  }
  return out;
}
