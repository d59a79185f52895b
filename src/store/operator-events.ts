import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventsDir, readEventFile } from './event-store.js';
import type { Home } from './home.js';

/** An admitted operator message that triggered no wait (it only nudged its agent). */
export interface OperatorNudge {
  agent: string;
  event: string;
  work_item: string | null;
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
      if (ev.source !== 'operator' || ev.status !== 'admitted' || ev.disposition?.triggered.length) continue;
      out.push({ agent, event: ev.id, work_item: ev.work_item });
    } catch {
      // A broken record is `holon check`'s to report.
    }
  }
  return out;
}
