import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invalid } from '../core/errors.js';
import { iso } from '../core/time.js';
import {
  assertCanClose, assertCanCompact, assertCanSend, checkCommandResult, commandInput, commandPayload, compactInput, compactPrompt,
  effectiveScope, failedResult, sessionTotalsBefore, splitAnswer, sumUsage, stateAfter, threadPrompt, type Checkpoint, type CommandRecord, type CommandResult,
  type ScopeCheck, type ThreadRecord, type WorkCommand,
} from '../core/threads.js';
import { outsideScope } from '../core/write-scope.js';
import { enqueueEvent } from '../store/events.js';
import { eventExists, occurrenceEventId } from '../store/event-store.js';
import { changedBetween, gitSnapshot } from '../store/git-changes.js';
import type { Home } from '../store/home.js';
import {
  commandLog, listCheckpoints, listCommands, threadFile, mutateThread, newCommandId, readCheckpointText, readCommand, readRuntime, readThread,
  workdirOf, writeCheckpoint, writeCommand, writeRuntime,
} from '../store/threads.js';
import { runChild } from './thread-runners.js';
import { pidAlive } from '../store/watcher-lock.js';

// A separate process running tsc's dist/runtime/ file: the path holds from dist/runtime/ and from dist/bundle/.
const SUPERVISOR = fileURLToPath(new URL('../runtime/thread-supervisor.js', import.meta.url));

/** The event that carries a command's result: one per command, so reporting twice writes it once. */
export const commandEventId = (commandId: string) => occurrenceEventId(`thread-command:${commandId}`);

/** Commands of the thread's current session (since the last compaction), before `seq`. */
function sessionHistory(home: Home, t: ThreadRecord, seq: number): CommandRecord[] {
  return listCommands(home, t.agent, t.id).filter((c) => c.session === t.session && c.seq < seq);
}

/**
 * Registers a command: refused while another runs (exit 5) or once closed (exit 3). The command record
 * and the thread's `running` state are written under the thread's lock, so two sends never both win.
 */
export async function registerCommand(home: Home, agent: string, threadId: string, cmd: WorkCommand, by: string, nowMs: number): Promise<{ thread: ThreadRecord; command: CommandRecord }> {
  return mutateThread(home, agent, threadId, (t) => {
    assertCanSend(t);
    const id = newCommandId();
    const c: CommandRecord = {
      ...cmd, id, thread: t.id, seq: t.command_count + 1, session: t.session, status: 'running', sent_at: iso(nowMs), sent_ms: nowMs, sent_by: by, host: hostname(),
      ended_at: null, result: null, result_errors: [], raw_output: null, usage: null, cost_usd: null, exit_code: null, session_id: null,
      // Context policy none: nothing of earlier commands, so claude/codex start a fresh session each time.
      resumed_session: t.policy.context_policy === 'none' ? null : t.session_id, scope_check: null, event: commandEventId(id),
    };
    writeCommand(home, agent, c);
    const next: ThreadRecord = { ...t, state: 'running', active_command: c.id, command_count: c.seq, last_command: c.id, updated_at: iso(nowMs) };
    return { next, result: { thread: next, command: c } };
  });
}

/** Starts the detached supervisor that runs the command; returns once it runs. */
export async function startCommandInBackground(home: Home, t: ThreadRecord, c: CommandRecord, nowMs: number): Promise<void> {
  const child = spawn(process.execPath, [SUPERVISOR, home.dir, t.agent, t.id, c.id], { detached: true, stdio: 'ignore', cwd: workdirOf(home, t), env: process.env });
  const failure = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', resolve);
  });
  if (failure) {
    await finishCommand(home, t.agent, t.id, c.id, { result: failedResult(`could not start the supervisor: ${failure.message}`), errors: [failure.message], raw: null }, Date.now());
    throw invalid(`could not start thread ${t.id}'s command in ${workdirOf(home, t)}: ${failure.message}`, 'check that the thread\'s checkout still exists');
  }
  writeRuntime(home, { command: c.id, thread: t.id, agent: t.agent, supervisor_pid: child.pid ?? null, child_pid: null, started_at: iso(nowMs), log: commandLog(home, c.id) });
  child.unref();
}

interface Outcome {
  result: CommandResult;
  errors: string[];
  raw: string | null;
  usage?: CommandRecord['usage'];
  cost_usd?: number | null;
  exit_code?: number | null;
  session_id?: string | null;
  scope_check?: ScopeCheck | null;
  status?: CommandRecord['status'];
}

/**
 * Runs a registered command to its end in this process (the supervisor, or `send --wait`): the child
 * once, then git's view of what changed, the answer checked against the schema and the scope, the
 * record written, the thread idle (or blocked) again, and the result event queued for the parent.
 */
export async function executeCommand(home: Home, agent: string, threadId: string, commandId: string): Promise<CommandRecord> {
  const t = readThread(home, agent, threadId);
  const c = readCommand(home, agent, threadId, commandId);
  const checkpoint = readCheckpointText(home, t);
  const fresh = !c.resumed_session;
  const earlier = sessionHistory(home, t, c.seq);
  const log = commandLog(home, c.id);
  const prior = readRuntime(home, c.id);
  writeRuntime(home, { command: c.id, thread: t.id, agent, supervisor_pid: process.pid, child_pid: null, started_at: prior?.started_at ?? c.sent_at, log });
  const workdir = workdirOf(home, t);
  const before = gitSnapshot(workdir, home.dir);
  const env = { ...process.env, HOLON_HOME: home.dir, HOLON_AGENT: agent, HOLON_THREAD: t.id, HOLON_THREAD_COMMAND: c.id, HOLON_ACTOR: `agent:${agent}` };
  const req = { op: 'command' as const, stdin: commandInput(t, c, earlier, checkpoint), prompt: threadPrompt(t, c, checkpoint, fresh) };
  const usedBefore = c.resumed_session ? sessionTotalsBefore(earlier.filter((e) => e.session_id === c.resumed_session)) : null;
  const answer = await runChild(home, t, req, c.resumed_session, usedBefore, env, log, (pid) =>
    writeRuntime(home, { command: c.id, thread: t.id, agent, supervisor_pid: process.pid, child_pid: pid, started_at: prior?.started_at ?? c.sent_at, log }),
  );
  const after = before ? gitSnapshot(workdir, home.dir) : null;
  const split = splitAnswer(answer.value);
  let result: CommandResult;
  let errors: string[] = [];
  if (answer.error) {
    errors = [answer.error];
    result = failedResult(`no usable answer: ${answer.error}`);
  } else {
    errors = checkCommandResult(split.result);
    result = errors.length ? failedResult(`the answer does not match the CommandResult schema: ${errors.join('; ')}`) : (split.result as CommandResult);
  }
  const changed = before && after ? changedBetween(before, after, home.dir) : [];
  // What the child says it changed counts too (git may not see it, e.g. outside a checkout).
  const claimed = (result.files_changed ?? []).map((f) => repoPath(f, before?.root ?? workdir));
  const touched = [...new Set([...changed, ...claimed])];
  const outside = [...new Set([...outsideScope(touched, t.policy.scope), ...outsideScope(touched, effectiveScope(t, c))])].sort();
  const scopeCheck: ScopeCheck = before && after
    ? { checked: true, reason: null, changed, outside_scope: outside, unreported: changed.filter((p) => !claimed.includes(p)) }
    : { checked: false, reason: `${workdir} is not in a git checkout: only the child's files_changed were checked`, changed: [], outside_scope: outside, unreported: [] };
  return finishCommand(home, agent, threadId, commandId, {
    result, errors, raw: errors.length ? answer.raw : null, usage: split.usage ?? answer.usage, cost_usd: answer.cost_usd,
    exit_code: answer.exit_code, session_id: split.session_id ?? answer.session_id, scope_check: scopeCheck,
  }, Date.now());
}

/** A path as the child wrote it (`./src/a.ts`, absolute) as a repository path (`src/a.ts`). */
function repoPath(file: string, root: string): string {
  const abs = isAbsolute(file) ? file : resolve(root, file);
  const rel = relative(root, abs);
  return rel.startsWith('..') || isAbsolute(rel) ? file : rel.split(sep).join('/');
}

/** Raw answers are kept, up to this much of them. */
const MAX_RAW = 64 * 1024;

/** Writes a command's end (once: a command that already ended stays as it is) and queues its event. */
export async function finishCommand(home: Home, agent: string, threadId: string, commandId: string, o: Outcome, nowMs: number): Promise<CommandRecord> {
  return mutateThread(home, agent, threadId, (t) => {
    const cur = readCommand(home, agent, threadId, commandId);
    if (cur.status !== 'running') return { next: null, result: cur };
    const done: CommandRecord = {
      ...cur, status: o.status ?? 'finished', ended_at: iso(nowMs), result: o.result, result_errors: o.errors,
      raw_output: o.raw == null ? null : o.raw.slice(0, MAX_RAW), usage: o.usage ?? null, cost_usd: o.cost_usd ?? null,
      exit_code: o.exit_code ?? null, session_id: o.session_id ?? null, scope_check: o.scope_check ?? null,
    };
    writeCommand(home, agent, done);
    enqueueCommandEvent(home, agent, done, nowMs);
    // A runner that reports no session keeps the one it resumed (command runners have none).
    const session = done.session_id ?? cur.resumed_session ?? t.session_id;
    const next: ThreadRecord = t.active_command === cur.id
      ? { ...t, state: t.state === 'closed' ? 'closed' : stateAfter(o.result), active_command: null, session_id: session, updated_at: iso(nowMs) }
      : t;
    return { next, result: done };
  });
}

/** Queues the result event of a finished command unless it exists already. */
export function enqueueCommandEvent(home: Home, agent: string, c: CommandRecord, nowMs: number): boolean {
  const id = commandEventId(c.id);
  if (eventExists(home, agent, id)) return false;
  enqueueEvent(home, agent, { id, source: 'thread', mode: 'message', resource: `thread:${c.thread}`, work_item: null, payload: commandPayload(c), provenance: `thread:${c.thread}/${c.id}` }, nowMs);
  return true;
}

const mtimeMs = (file: string) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

const alive = (pid: number | null | undefined): boolean => pid != null && pidAlive(pid);

/** How long a running command may go without a supervisor pid on this machine before it counts as interrupted. */
const SUPERVISOR_GRACE_MS = 30_000;

/**
 * The tick's thread phase: a running command whose supervisor is gone (a crash, a reboot, a killed
 * `send --wait`) is marked `interrupted` and its thread idle again, with an event for the parent.
 * It is never started again by holon: the parent decides whether to send it once more.
 */
export async function reportInterruptedCommands(home: Home, threads: ThreadRecord[], nowMs: number): Promise<Array<{ thread: string; command: string; agent: string }>> {
  const out: Array<{ thread: string; command: string; agent: string }> = [];
  for (const t of threads) {
    if (t.state !== 'running' || !t.active_command) continue;
    const rt = readRuntime(home, t.active_command);
    if (!rt) {
      // Another machine's command (the home is shared through git) is that machine's to judge.
      let host: string | null = null;
      try {
        host = readCommand(home, t.agent, t.id, t.active_command).host;
      } catch {
        host = null;
      }
      if (host && host !== hostname()) continue;
    }
    // Real time, not the command's clock: HOLON_NOW must not make a just-sent command look interrupted.
    const gone = rt ? !alive(rt.supervisor_pid) : Date.now() - mtimeMs(threadFile(home, t.agent, t.id)) > SUPERVISOR_GRACE_MS;
    if (!gone) continue;
    if (rt?.child_pid && alive(rt.child_pid)) {
      try {
        process.kill(-rt.child_pid, 'SIGTERM'); // an orphaned child must not go on changing files unrecorded
      } catch {
        // already gone
      }
    }
    const why = 'interrupted: the process that ran this command ended before it did (crash, reboot or kill); it was not run again';
    const done = await finishCommand(home, t.agent, t.id, t.active_command, { result: failedResult(why), errors: [why], raw: null, status: 'interrupted' }, nowMs);
    if (done.status === 'interrupted') out.push({ thread: t.id, command: done.id, agent: t.agent });
  }
  return out;
}

/**
 * Compacts a thread: the checkpoint is the parent's text, or asked of the child (its answer, in its
 * current session). The next command starts a fresh session from checkpoint, role and policy.
 */
export async function compactThread(home: Home, agent: string, threadId: string, text: string | null, nowMs: number): Promise<{ thread: ThreadRecord; checkpoint: Checkpoint }> {
  const t0 = readThread(home, agent, threadId);
  assertCanCompact(t0);
  const earlier = listCommands(home, agent, threadId).filter((c) => c.session === t0.session);
  let usage: Checkpoint['usage'] = null;
  let body = text?.trim() ?? '';
  if (!text && t0.policy.runner !== 'command' && !t0.session_id) {
    throw invalid(`thread ${t0.id} has no ${t0.policy.runner} session to ask for a checkpoint (no command since ${t0.session > 1 ? 'the last compaction' : 'it was created'})`, `give the checkpoint yourself: holon thread compact ${t0.id} --checkpoint "..."`);
  }
  if (!text) {
    const env = { ...process.env, HOLON_HOME: home.dir, HOLON_AGENT: agent, HOLON_THREAD: t0.id, HOLON_ACTOR: `agent:${agent}` };
    const id = `${t0.id}-ck${t0.session}`;
    const answer = await runChild(home, t0, { op: 'compact', stdin: compactInput(t0, earlier, readCheckpointText(home, t0)), prompt: compactPrompt(t0) }, t0.session_id, sessionTotalsBefore(earlier.filter((c) => c.session_id === t0.session_id)), env, commandLog(home, id));
    const split = splitAnswer(answer.value);
    const ck = (split.result as Record<string, unknown> | undefined)?.checkpoint;
    if (answer.error || typeof ck !== 'string' || !ck.trim()) {
      throw invalid(`thread ${t0.id}: the child gave no checkpoint (${answer.error ?? 'expected {"checkpoint": "..."}'}); nothing changed`, `give one yourself: holon thread compact ${t0.id} --checkpoint "..."`);
    }
    body = ck.trim();
    usage = split.usage ?? answer.usage;
  }
  if (!body) throw invalid('--checkpoint is empty', 'say what the next session must know, or leave --checkpoint out to ask the child');
  return mutateThread(home, agent, threadId, (t) => {
    assertCanCompact(t);
    const ck: Checkpoint = { id: `ck-${t.session}`, thread: t.id, session: t.session, text: body, written_by: text ? 'parent' : 'child', created_at: iso(nowMs), covers: earlier.map((c) => c.id), usage };
    writeCheckpoint(home, agent, ck);
    const next: ThreadRecord = { ...t, state: 'compacted', session_id: null, session: t.session + 1, checkpoint: ck.id, updated_at: iso(nowMs) };
    return { next, result: { thread: next, checkpoint: ck } };
  });
}

export async function closeThread(home: Home, agent: string, threadId: string, reason: string | null, nowMs: number): Promise<{ thread: ThreadRecord; changed: boolean }> {
  return mutateThread<{ thread: ThreadRecord; changed: boolean }>(home, agent, threadId, (t) => {
    if (t.state === 'closed') return { next: null, result: { thread: t, changed: false } };
    assertCanClose(t);
    const next: ThreadRecord = { ...t, state: 'closed', closed_at: iso(nowMs), close_reason: reason, updated_at: iso(nowMs) };
    return { next, result: { thread: next, changed: true } };
  });
}

/** Everything `thread inspect` shows. */
export function threadView(home: Home, t: ThreadRecord) {
  const commands = listCommands(home, t.agent, t.id);
  const checkpoints = listCheckpoints(home, t.agent, t.id);
  const last = [...commands].reverse().find((c) => c.status !== 'running') ?? null;
  const commandTokens = sumUsage(commands.map((c) => c.usage));
  const checkpointTokens = sumUsage(checkpoints.map((c) => c.usage));
  return {
    ...t,
    active_command: t.active_command ? commands.find((c) => c.id === t.active_command) ?? { id: t.active_command } : null,
    last_result: last ? { command: last.id, seq: last.seq, status: last.status, result: last.result, result_errors: last.result_errors, scope_check: last.scope_check } : null,
    checkpoint: t.checkpoint ? checkpoints.find((c) => c.id === t.checkpoint) ?? null : null,
    tokens: { commands: commandTokens, checkpoints: checkpointTokens, total: sumUsage([commandTokens, checkpointTokens]) },
    compactions: checkpoints.length,
    commands: commands,
  };
}
