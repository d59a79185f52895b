import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseYamlRecord, RecordParseError, type RecordProblem } from '../core/record-codec.js';
import { THREAD_STATES } from '../core/threads.js';
import type { Home } from './home.js';
import { threadsDir } from './threads.js';

const entries = (dir: string) => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

/** Problems of an agent's thread records for `holon check`: unreadable files, ids and states that do not fit. */
export function checkThreads(home: Home, agent: string): RecordProblem[] {
  const problems: RecordProblem[] = [];
  const parse = (file: string): Record<string, unknown> | null => {
    try {
      return parseYamlRecord(readFileSync(file, 'utf8'), file, 'id: "th-4f2a9c1k"').data;
    } catch (err) {
      if (err instanceof RecordParseError) problems.push(err.problem);
      else problems.push({ file, line: 1, message: `unreadable: ${(err as Error).message}`, fix: 'restore it from git' });
      return null;
    }
  };
  for (const id of entries(threadsDir(home, agent))) {
    const dir = join(threadsDir(home, agent), id);
    const file = join(dir, 'thread.yaml');
    const t = parse(file);
    if (t && t.id !== id) problems.push({ file, line: 1, message: `id "${String(t.id)}" does not match the folder "${id}"`, fix: `set id: "${id}"` });
    if (t && !THREAD_STATES.includes(t.state as never)) problems.push({ file, line: 1, message: `unknown thread state "${String(t.state)}"`, fix: `state is one of ${THREAD_STATES.join(', ')}` });
    for (const sub of ['commands', 'checkpoints']) {
      for (const f of entries(join(dir, sub)).filter((x) => x.endsWith('.yaml'))) {
        const rec = parse(join(dir, sub, f));
        if (rec && rec.id !== f.slice(0, -5)) problems.push({ file: join(dir, sub, f), line: 1, message: `id "${String(rec.id)}" does not match the file name`, fix: `set id: "${f.slice(0, -5)}"` });
      }
    }
  }
  return problems;
}
