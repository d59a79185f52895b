import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from './random.js';
import { invalid, notFound } from '../core/errors.js';
import { assertSafeId, closeMatches, formatId } from '../core/ids.js';
import { parseYamlRecord, RecordParseError, yamlValue } from '../core/record-codec.js';
import type { Checkpoint, CommandRecord, ThreadRecord } from '../core/threads.js';
import { writeFileAtomic } from './atomic-write.js';
import { agentDir, listAgents, type Home } from './home.js';
import { withLock } from './lock.js';
import { problemError } from './work-store.js';

/**
 * A work thread lives in agents/A/threads/ID/: thread.yaml (identity, policy, state), one file per
 * command in commands/ (the command, then its result and usage) and one per checkpoint in
 * checkpoints/. A new fact is a new file; nothing is ever deleted. Process state of this machine
 * (supervisor pid, the child's log) stays in local/threads/.
 */
export const threadsDir = (home: Home, agent: string) => join(agentDir(home, agent), 'threads');
export const threadDir = (home: Home, agent: string, id: string) => join(threadsDir(home, agent), assertSafeId(id, 'thread id'));
export const threadFile = (home: Home, agent: string, id: string) => join(threadDir(home, agent, id), 'thread.yaml');
export const commandFile = (home: Home, agent: string, thread: string, id: string) => join(threadDir(home, agent, thread), 'commands', `${assertSafeId(id, 'command id')}.yaml`);
export const checkpointFile = (home: Home, agent: string, thread: string, id: string) => join(threadDir(home, agent, thread), 'checkpoints', `${assertSafeId(id, 'checkpoint id')}.yaml`);
export const threadLocalDir = (home: Home) => join(home.local, 'threads');
export const commandLog = (home: Home, id: string) => join(threadLocalDir(home), `${assertSafeId(id, 'command id')}.log`);
const runtimeFile = (home: Home, id: string) => join(threadLocalDir(home), `${assertSafeId(id, 'command id')}.json`);

/** The checkout a thread works in: its `workdir` is kept relative to the home's project, so the record travels. */
export const workdirOf = (home: Home, t: Pick<ThreadRecord, 'workdir'>) => resolve(home.root, t.workdir);

export const newThreadId = () => formatId('th', randomBytes(8));
export const newCommandId = () => formatId('c', randomBytes(8));

const THREAD_KEYS = ['id', 'agent', 'role', 'policy', 'work_item', 'workdir', 'created_at', 'created_by', 'state', 'active_command', 'session_id', 'session', 'checkpoint', 'command_count', 'last_command', 'updated_at', 'closed_at', 'close_reason'] as const;
const COMMAND_KEYS = ['id', 'thread', 'seq', 'session', 'status', 'objective', 'scope', 'constraints', 'context_refs', 'expected_result', 'sent_at', 'sent_ms', 'sent_by', 'host', 'ended_at', 'result', 'result_errors', 'raw_output', 'usage', 'cost_usd', 'exit_code', 'session_id', 'resumed_session', 'scope_check', 'event'] as const;
const CHECKPOINT_KEYS = ['id', 'thread', 'session', 'written_by', 'created_at', 'covers', 'usage', 'text'] as const;

function serialize(rec: object, keys: readonly string[]): string {
  const ordered: Record<string, unknown> = {};
  for (const k of keys) ordered[k] = (rec as Record<string, unknown>)[k] ?? null;
  return yamlValue(ordered) + '\n';
}

function readRecord(file: string, what: string, fix: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`no ${what} at ${file}`, fix);
    throw err;
  }
  try {
    return parseYamlRecord(text, file, 'id: "th-4f2a9c1k"').data;
  } catch (err) {
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
}

const tmp = (home: Home) => join(home.local, 'tmp');

export function readThread(home: Home, agent: string, id: string): ThreadRecord {
  return readRecord(threadFile(home, agent, id), `thread ${id}`, 'see `holon thread list`') as unknown as ThreadRecord;
}

export function writeThread(home: Home, t: ThreadRecord): void {
  mkdirSync(threadDir(home, t.agent, t.id), { recursive: true });
  writeFileAtomic(threadFile(home, t.agent, t.id), serialize(t, THREAD_KEYS), tmp(home));
}

/** Changes a thread under its lock: re-read, apply, write. `fn` may throw to refuse. */
export async function mutateThread<R>(home: Home, agent: string, id: string, fn: (t: ThreadRecord) => { next: ThreadRecord | null; result: R }): Promise<R> {
  return withLock(home.local, `thread.${id}`, () => {
    const { next, result } = fn(readThread(home, agent, id));
    if (next) writeThread(home, next);
    return result;
  });
}

export function readCommand(home: Home, agent: string, thread: string, id: string): CommandRecord {
  return readRecord(commandFile(home, agent, thread, id), `command ${id}`, `see \`holon thread inspect ${thread}\``) as unknown as CommandRecord;
}

export function writeCommand(home: Home, agent: string, c: CommandRecord): void {
  mkdirSync(join(threadDir(home, agent, c.thread), 'commands'), { recursive: true });
  writeFileAtomic(commandFile(home, agent, c.thread, c.id), serialize(c, COMMAND_KEYS), tmp(home));
}

const yamlIds = (dir: string) => {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5));
  } catch {
    return [];
  }
};

/** Every command of a thread, in the order they were sent. */
export function listCommands(home: Home, agent: string, thread: string): CommandRecord[] {
  const out: CommandRecord[] = [];
  for (const id of yamlIds(join(threadDir(home, agent, thread), 'commands'))) {
    try {
      out.push(readCommand(home, agent, thread, id));
    } catch {
      // a hand-broken record is skipped here; its thread still works
    }
  }
  return out.sort((a, b) => a.seq - b.seq);
}

export function writeCheckpoint(home: Home, agent: string, ck: Checkpoint): void {
  mkdirSync(join(threadDir(home, agent, ck.thread), 'checkpoints'), { recursive: true });
  writeFileAtomic(checkpointFile(home, agent, ck.thread, ck.id), serialize(ck, CHECKPOINT_KEYS), tmp(home));
}

export function listCheckpoints(home: Home, agent: string, thread: string): Checkpoint[] {
  const dir = join(threadDir(home, agent, thread), 'checkpoints');
  const out: Checkpoint[] = [];
  for (const id of yamlIds(dir)) {
    try {
      out.push(readRecord(join(dir, `${id}.yaml`), `checkpoint ${id}`, '') as unknown as Checkpoint);
    } catch {
      // skipped, as for commands
    }
  }
  return out.sort((a, b) => a.session - b.session);
}

export function readCheckpointText(home: Home, t: ThreadRecord): string | null {
  if (!t.checkpoint) return null;
  return listCheckpoints(home, t.agent, t.id).find((c) => c.id === t.checkpoint)?.text ?? null;
}

export interface ThreadRef {
  agent: string;
  id: string;
}

/** Every thread of the given agents (all agents by default). */
export function listThreads(home: Home, agents = listAgents(home)): ThreadRecord[] {
  const out: ThreadRecord[] = [];
  for (const a of agents) {
    let ids: string[] = [];
    try {
      ids = readdirSync(threadsDir(home, a)).filter((d) => existsSync(join(threadsDir(home, a), d, 'thread.yaml')));
    } catch {
      continue;
    }
    for (const id of ids) {
      try {
        out.push(readThread(home, a, id));
      } catch {
        // `holon thread inspect ID` names the problem
      }
    }
  }
  return out.sort((x, y) => x.created_at.localeCompare(y.created_at) || x.id.localeCompare(y.id));
}

/** Finds a thread by id or unique prefix, the preferred agent's first. */
export function locateThread(home: Home, wanted: string, preferAgent?: string): ThreadRef {
  assertSafeId(wanted, 'thread id');
  const agents = listAgents(home);
  const order = preferAgent && agents.includes(preferAgent) ? [preferAgent, ...agents.filter((a) => a !== preferAgent)] : agents;
  const all: ThreadRef[] = [];
  for (const a of order) {
    let ids: string[] = [];
    try {
      ids = readdirSync(threadsDir(home, a));
    } catch {
      continue;
    }
    for (const id of ids) if (existsSync(join(threadsDir(home, a), id, 'thread.yaml'))) all.push({ agent: a, id });
  }
  const exact = all.find((r) => r.id === wanted);
  if (exact) return exact;
  const hits = all.filter((r) => r.id.startsWith(wanted));
  if (hits.length === 1) return hits[0];
  if (hits.length > 1) throw invalid(`"${wanted}" matches ${hits.length} threads`, 'type more of the id');
  const near = closeMatches(wanted, all.map((r) => r.id));
  throw notFound(`no thread "${wanted}"`, near.length ? `did you mean ${near.join(', ')}?` : 'see `holon thread list`, or create one: holon thread create --role ...');
}

/** Finds the thread that holds a command id. */
export function locateCommand(home: Home, commandId: string): ThreadRef & { command: string } {
  assertSafeId(commandId, 'command id');
  for (const t of listThreads(home)) {
    if (existsSync(commandFile(home, t.agent, t.id, commandId))) return { agent: t.agent, id: t.id, command: commandId };
  }
  throw notFound(`no command "${commandId}"`, 'see the commands of a thread with `holon thread inspect ID`');
}

/** This machine's process state of a running command. */
export interface CommandRuntime {
  command: string;
  thread: string;
  agent: string;
  supervisor_pid: number | null;
  child_pid: number | null;
  started_at: string;
  log: string;
}

export function writeRuntime(home: Home, r: CommandRuntime): void {
  mkdirSync(threadLocalDir(home), { recursive: true });
  writeFileAtomic(runtimeFile(home, r.command), JSON.stringify(r, null, 2) + '\n', tmp(home));
}

export function readRuntime(home: Home, commandId: string): CommandRuntime | null {
  try {
    return JSON.parse(readFileSync(runtimeFile(home, commandId), 'utf8')) as CommandRuntime;
  } catch {
    return null;
  }
}
