import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from './random.js';
import { conflict, HolonError, invalid, notFound } from '../core/errors.js';
import { assertSafeId, closeMatches, formatId } from '../core/ids.js';
import { parseMarkdownRecord, RecordParseError, type RecordProblem } from '../core/record-codec.js';
import { iso } from '../core/time.js';
import { serializeWork, workFromRecord, type WorkDoc } from '../core/workitem.js';
import { writeFileAtomic } from './atomic-write.js';
import { agentDir, listAgents, type Home } from './home.js';
import { withLock } from './lock.js';
import { readRecordText } from './record-file.js';

export const workDir = (home: Home, agent: string) => join(agentDir(home, agent), 'work');
export const workFile = (home: Home, agent: string, id: string) => join(workDir(home, agent), `${assertSafeId(id)}.md`);

/** A WorkItem's location: which agent's folder holds it. */
export interface WorkRef {
  agent: string;
  id: string;
  file: string;
}

export function newWorkId(): string {
  return formatId('w', randomBytes(8));
}

/** Reads and parses one WorkItem file. Throws HolonError(invalid) with file and line when it is malformed. */
export function readWorkFile(file: string, id: string): WorkDoc {
  let text: string;
  try {
    text = readRecordText(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`no WorkItem file ${file}`);
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
  return parseWorkText(text, file, id);
}

export function parseWorkText(text: string, file: string, id: string): WorkDoc {
  try {
    return workFromRecord(parseMarkdownRecord(text, file), file, id);
  } catch (err) {
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
}

export function problemError(p: RecordProblem): HolonError {
  return new HolonError('invalid', `${p.file}:${p.line}: ${p.message}`, { hint: p.fix, where: `${p.file}:${p.line}`, details: p });
}

function idsIn(home: Home, agent: string): string[] {
  try {
    return readdirSync(workDir(home, agent)).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
  } catch {
    return [];
  }
}

/**
 * Finds a WorkItem by id or unique id prefix. Looks in `agent`'s folder first, then the other agents'.
 * An exact id costs one stat per agent; only a prefix or a miss lists folders.
 */
export function locateWork(home: Home, wanted: string, agent?: string): WorkRef {
  assertSafeId(wanted, 'WorkItem id');
  const agents = listAgents(home);
  const order = agent ? [agent, ...agents.filter((a) => a !== agent)] : agents;
  for (const a of order) {
    const file = workFile(home, a, wanted);
    if (existsSync(file)) return { agent: a, id: wanted, file };
  }
  const matches: WorkRef[] = [];
  const all: string[] = [];
  for (const a of order) {
    for (const id of idsIn(home, a)) {
      all.push(id);
      if (id.startsWith(wanted)) matches.push({ agent: a, id, file: workFile(home, a, id) });
    }
  }
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    throw invalid(`"${wanted}" matches ${matches.length} WorkItems: ${matches.slice(0, 5).map((m) => m.id).join(', ')}${matches.length > 5 ? ', ...' : ''}`, 'type more of the id');
  }
  const near = closeMatches(wanted, all);
  throw notFound(`no WorkItem "${wanted}"`, near.length ? `did you mean ${near.join(', ')}?` : 'see `holon list --all` for the ids');
}

/** Creates a new WorkItem file; refuses to overwrite. */
export async function createWork(home: Home, doc: WorkDoc): Promise<WorkRef> {
  const { agent, id } = doc.item;
  const file = workFile(home, agent, id);
  mkdirSync(workDir(home, agent), { recursive: true });
  await withLock(home.local, `${agent}.${id}`, () => {
    if (existsSync(file)) throw conflict(`WorkItem ${id} already exists`, 'retry: a new id is drawn each time');
    writeFileAtomic(file, serializeWork(doc), join(home.local, 'tmp'));
  });
  return { agent, id, file };
}

export interface MutateResult {
  doc: WorkDoc;
  changed: boolean;
}

/**
 * The one way WorkItems change: lock, re-read, apply `fn`, and if the file would differ, bump
 * `revision` and `updated_at` and write it atomically. `fn` may throw to refuse the change.
 */
export async function mutateWork(
  home: Home,
  ref: WorkRef,
  nowMs: number,
  fn: (doc: WorkDoc) => WorkDoc,
  opts: { lockRetries?: number } = {},
): Promise<MutateResult> {
  // Synchronous inside the lock (withLock then arms no refresh timer: a short command's write is quick).
  return withLock(home.local, `${ref.agent}.${ref.id}`, () => {
    const before = readWorkFile(ref.file, ref.id);
    // Before `fn`, which may change the doc it is given.
    const beforeText = serializeWork(before);
    const after = fn(before);
    if (serializeWork(after) === beforeText) return { doc: before, changed: false };
    const next: WorkDoc = { ...after, item: { ...after.item, revision: before.item.revision + 1, updated_at: iso(nowMs) } };
    writeFileAtomic(ref.file, serializeWork(next), join(home.local, 'tmp'));
    return { doc: next, changed: true };
  }, { retries: opts.lockRetries });
}

export type WorkProblem = RecordProblem;
