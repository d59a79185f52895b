import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { agentDir, type Home } from './home.js';

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
  const dir = join(agentDir(home, agent), 'events');
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
      const d = parseYaml(readFileSync(join(dir, f), 'utf8')) as Record<string, any> | null;
      if (!d || d.source !== 'operator' || d.status !== 'admitted') continue;
      if (Array.isArray(d.disposition?.triggered) && d.disposition.triggered.length) continue;
      out.push({ agent, event: String(d.id), work_item: d.work_item ? String(d.work_item) : null });
    } catch {
      // A broken record is `holon check`'s to report.
    }
  }
  return out;
}
