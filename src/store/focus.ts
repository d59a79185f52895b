import { join } from 'node:path';
import { parseYamlMap } from '../core/yaml-lib.js';
import { yamlValue } from '../core/record-codec.js';
import { iso } from '../core/time.js';
import { writeFileAtomic } from './atomic-write.js';
import { agentDir, type Home } from './home.js';
import { withLock } from './lock.js';
import { readRecordText } from './record-file.js';

/**
 * An agent's focus (its current WorkItem) lives in agents/NAME/focus.yaml, committed with the rest,
 * so a resume on another machine knows where the agent was. It is one small file per agent.
 */
export interface Focus {
  work_item: string | null;
  since: string | null;
}

const focusFile = (home: Home, agent: string) => join(agentDir(home, agent), 'focus.yaml');

export function readFocus(home: Home, agent: string): Focus {
  try {
    const d = parseYamlMap(readRecordText(focusFile(home, agent))) as Partial<Focus> | null;
    return { work_item: d?.work_item ? String(d.work_item) : null, since: d?.since ? String(d.since) : null };
  } catch {
    return { work_item: null, since: null };
  }
}

export async function writeFocus(home: Home, agent: string, id: string | null, nowMs: number): Promise<Focus> {
  // The focus already (a repeated pick): nothing to write, so no lock. The file is replaced whole by rename.
  const seen = readFocus(home, agent);
  if (seen.work_item === id && seen.since) return seen;
  return withLock(home.local, `${agent}.focus`, () => {
    const cur = readFocus(home, agent);
    if (cur.work_item === id) return cur;
    const next: Focus = { work_item: id, since: iso(nowMs) };
    writeFileAtomic(focusFile(home, agent), yamlValue(next) + '\n', join(home.local, 'tmp'));
    return next;
  });
}
