import { randomBytes } from '../store/random.js';
import { invalid, notFound, usage } from '../core/errors.js';
import { formatId } from '../core/ids.js';
import { ceilSecond, type Timer } from '../core/schedule.js';
import { iso, parseDuration, parseIso, parseWhen } from '../core/time.js';
import { addWait, cancelWait, resolveWait, triggerWait } from '../core/transitions.js';
import type { Wait } from '../core/types.js';
import { parseWaitFor } from '../core/wait-matching.js';
import { viewOf, type WorkView } from '../core/workitem.js';
import { readAdmitted } from '../store/event-store.js';
import { listAgents } from '../store/home.js';
import { locateTask, readTask, type TaskRecord } from '../store/tasks.js';
import { travelledTaskResult, type TravelledResult } from '../store/task-results.js';
import { locateTimer, readTimerFile, timerFile } from '../store/timers.js';
import { loadAgentWork } from '../store/work-index.js';
import { mutateWork, readWorkFile, workFile, type WorkRef } from '../store/work-store.js';
import { cancelTimer, fireEventId } from '../runtime/timers.js';
import type { OpsCtx } from './context.js';
import { createTimerFor, timerView } from './timers.js';

export interface WaitOptions {
  /** external:RESOURCE, task:HANDLE, timer:ID, timer (with in/at) or operator. */
  for?: string;
  reason?: string;
  recheck?: string;
  in?: string;
  at?: string;
}

export type WaitOutcome =
  | { registered: true; work_item: string; wait: Wait; timer: ReturnType<typeof timerView> | null; item: WorkView; notes: string[] }
  | { registered: false; work_item: string; result: ReturnType<typeof taskResult>; task: TaskRecord; notes: string[] }
  | { registered: false; work_item: string; timer: ReturnType<typeof timerView>; notes: string[] }
  | { registered: false; work_item: string; thread_result: ThreadResult; notes: string[] }
  | { registered: false; work_item: string; travelled: TravelledResult; notes: string[] };

/** A thread command that already ended: its result, returned at once instead of registering a wait. */
export interface ThreadResult {
  thread: string;
  command: string;
  seq: number;
  status: string;
  result: { status: string; summary: string } | null;
  result_errors: unknown;
}

/** Finds the item holding a wait id (the given item, else every agent's items). */
export function locateWait(ctx: OpsCtx, waitId: string, ref: (() => WorkRef) | null): WorkRef {
  if (!/^wt-[0-9a-z]+$/.test(waitId)) throw invalid(`"${waitId}" is not a wait id`, 'wait ids look like wt-4f2a9c1k; see `holon show ID`');
  const home = ctx.home();
  if (ref) return ref();
  for (const a of listAgents(home)) {
    for (const item of loadAgentWork(home, a).items) {
      if (item.waits.some((w) => w.id === waitId)) return { agent: a, id: item.id, file: workFile(home, a, item.id) };
    }
  }
  throw notFound(`no wait "${waitId}"`, 'see the waits of an item with `holon show ID`');
}

/** Cancels an active wait or resolves a triggered one. */
export async function settleWait(ctx: OpsCtx, ref: WorkRef, opts: { waitId: string; how: 'cancel' | 'resolve' }): Promise<{ work_item: string; wait: Wait; changed: boolean }> {
  const nowIso = iso(ctx.nowMs);
  const { doc, changed } = await mutateWork(ctx.home(), ref, ctx.nowMs, (d) =>
    opts.how === 'cancel' ? cancelWait(d, opts.waitId, 'cancelled', nowIso) : resolveWait(d, opts.waitId, nowIso),
  );
  return { work_item: ref.id, wait: doc.item.waits.find((w) => w.id === opts.waitId)!, changed };
}

/** The checks that need no item: run before the item is resolved, so their errors come first. */
export function checkWaitOptions(opts: WaitOptions): void {
  if (!opts.for) throw usage('what does the item wait for? --for is missing', 'pass --for external:RESOURCE, task:HANDLE, timer:ID (or timer --in 2h), thread:ID or operator');
  const target = parseWaitFor(opts.for);
  if (opts.reason === undefined) throw usage('--reason is missing', 'say why the item waits, e.g. --reason "CI run on the fix commit"');
  if (!opts.reason.trim()) throw invalid('--reason is empty', 'say why the item waits, e.g. --reason "CI run on the fix commit"');
  if ((opts.in || opts.at) && target.kind !== 'timer') throw invalid('--in/--at only go with --for timer', 'for a fallback deadline use --recheck');
}

/** A timer's fire and a task's result go to their own agent's inbox: a wait of another agent's item would never wake. */
function refuseOtherAgent(kind: 'task' | 'timer' | 'thread', id: string, owner: string, ref: WorkRef, fix: string): void {
  if (owner !== ref.agent) throw invalid(`${kind} ${id} belongs to agent "${owner}", but ${ref.id} is agent "${ref.agent}"'s: its ${kind === 'timer' ? 'fire' : 'result'} would never wake this wait`, fix);
}

/**
 * `--for thread:th-...` (the thread's running command) or `thread:c-...` (one command): the result
 * when it is already there, else the command the wait will be woken by. Loaded only for thread waits.
 */
async function threadWaitTarget(home: ReturnType<OpsCtx['home']>, resource: string, ref: WorkRef) {
  const { locateCommand, locateThread, readCommand, readThread } = await import('../store/threads.js');
  const loc = resource.startsWith('c-') ? locateCommand(home, resource) : { ...locateThread(home, resource, ref.agent), command: null as string | null };
  const t = readThread(home, loc.agent, loc.id);
  const commandId = loc.command ?? t.active_command ?? t.last_command;
  if (!commandId) throw invalid(`thread ${t.id} has had no command yet: there is nothing to wait for`, `send one first: holon thread send ${t.id} --objective "..."`);
  const c = readCommand(home, loc.agent, t.id, commandId);
  if (c.status !== 'running') return { result: { thread: t.id, command: c.id, seq: c.seq, status: c.status, result: c.result, result_errors: c.result_errors } as ThreadResult };
  refuseOtherAgent('thread', t.id, loc.agent, ref, `create the thread as agent ${ref.agent}: holon --agent ${ref.agent} thread create --role ...`);
  return { agent: loc.agent, thread: t.id, command: c.id };
}

/** A fallback deadline before the timer is due would always expire the wait before its wake could come. */
function refuseEarlyRecheck(recheckMs: number | null, dueMs: number, given: string | undefined): void {
  if (recheckMs != null && recheckMs < dueMs) {
    throw invalid(`--recheck ${given} comes before the timer is due (${iso(dueMs)}): the wait would expire before its timer fires`, 'drop --recheck (the default comes after the due time), or give a later one');
  }
}

export function taskResult(t: TaskRecord) {
  return { task: t.id, status: t.status, exit_code: t.exit_code, signal: t.signal, ended_at: t.ended_at, output_tail: t.output_tail };
}

/**
 * Registers a wait on an item. Starts nothing, except the timer `--for timer --in/--at` asks for; a
 * task whose result is already there (or a fired timer) is returned at once and nothing is registered.
 */
export async function wait(ctx: OpsCtx, ref: WorkRef, opts: WaitOptions): Promise<WaitOutcome> {
  checkWaitOptions(opts);
  const home = ctx.home();
  const nowIso = iso(ctx.nowMs);
  const notes: string[] = [];
  const target = parseWaitFor(opts.for!);
  const reason = opts.reason!.trim();
  const item = readWorkFile(ref.file, ref.id).item;
  if (item.status === 'done') throw invalid(`${ref.id} is done; cannot wait on it`, 'a done item has nothing left to wait for; create a successor with `holon new`');
  // Checked before anything is created, so a refused wait leaves no timer behind.
  const explicitRecheck = opts.recheck ? ceilSecond(parseWhen(opts.recheck, ctx.nowMs, '--recheck')) : null;
  if (explicitRecheck != null && explicitRecheck <= ctx.nowMs) throw invalid(`--recheck ${opts.recheck} is in the past`, 'give a duration (6h) or a future ISO time');
  const fallback = parseDuration(home.config.default_recheck, 'default_recheck in holon.yaml');

  let dueMs: number | null = null;
  let timer: Timer | null = null;
  let createdTimer = false;
  let threadCommand: { agent: string; thread: string; command: string } | null = null;
  if (target.kind === 'thread') {
    const found = await threadWaitTarget(home, target.resource, ref);
    if (found.result) return { registered: false, work_item: ref.id, thread_result: found.result, notes };
    target.resource = found.thread!;
    threadCommand = { agent: found.agent!, thread: found.thread!, command: found.command! };
  } else if (target.kind === 'task') {
    // A task another clone ran: its result came with a sync as a committed event.
    const travelled = travelledTaskResult(home, ref.agent, target.resource);
    if (travelled) return { registered: false, work_item: ref.id, travelled, notes };
    target.resource = locateTask(home, target.resource);
    const t = readTask(home, target.resource);
    // Another agent's task is refused whether or not it has finished (its result is not this item's).
    refuseOtherAgent('task', t.id, t.agent, ref, `start the task for this item: holon task run --work ${ref.id} -- CMD`);
    if (t.status !== 'running') return { registered: false, work_item: ref.id, result: taskResult(t), task: t, notes };
  } else if (target.kind === 'timer') {
    if (!target.resource) {
      if (!opts.in && !opts.at) throw usage('--for timer needs a timer id or --in/--at', 'e.g. --for timer --in 2h, or --for timer:t-4f2a9c1k');
      refuseEarlyRecheck(explicitRecheck, ceilSecond(opts.in ? ctx.nowMs + parseDuration(opts.in, '--in') : parseIso(opts.at!, '--at')), opts.recheck);
      timer = await createTimerFor(ctx, ref.agent, { in: opts.in, at: opts.at, work: ref.id, summary: reason }, notes);
      createdTimer = true;
      target.resource = timer.id;
    } else {
      if (opts.in || opts.at) throw invalid('give either a timer id or --in/--at, not both', 'e.g. --for timer --in 2h');
      const loc = locateTimer(home, target.resource, ref.agent);
      target.resource = loc.id;
      timer = readTimerFile(timerFile(home, loc.agent, loc.id), loc.id);
      refuseOtherAgent('timer', timer.id, loc.agent, ref, `create a timer for this item: holon wait ${ref.id} --for timer --in 2h --reason ...`);
      if (timer.status === 'cancelled') throw invalid(`timer ${timer.id} is cancelled`, 'create a new one: --for timer --in 2h');
      if (timer.status === 'fired') return { registered: false, work_item: ref.id, timer: timerView(timer), notes };
      if (timer.next_due_at) refuseEarlyRecheck(explicitRecheck, Date.parse(timer.next_due_at), opts.recheck);
    }
    dueMs = timer.next_due_at ? Date.parse(timer.next_due_at) : null;
  }

  const recheckMs = explicitRecheck ?? ceilSecond((dueMs ?? ctx.nowMs) + fallback);
  const w: Wait = {
    id: formatId('wt', randomBytes(8)),
    kind: target.kind,
    resource: target.resource,
    reason,
    status: 'active',
    created_at: nowIso,
    recheck_at: iso(recheckMs),
    ...(target.kind === 'timer' && dueMs != null ? { due_at: iso(dueMs) } : {}),
    settled_at: null,
    settled_reason: null,
  };
  let doc;
  try {
    ({ doc } = await mutateWork(home, ref, ctx.nowMs, (d) => addWait(d, w, nowIso)));
  } catch (err) {
    // The wait was refused (item done meanwhile, lock): the timer made for it must not live on.
    if (timer && createdTimer) await cancelTimer(home, ref.agent, timer.id, ctx.nowMs).catch(() => undefined);
    throw err;
  }
  if (target.kind === 'task') {
    // The task may have ended between the check and the registration: settle at once from its event.
    const t = readTask(home, target.resource);
    const ev = t.status !== 'running' && t.event ? readAdmitted(home, t.agent, t.event) : null;
    if (ev) ({ doc } = await mutateWork(home, ref, ctx.nowMs, (d) => triggerWait(d, w.id, ev, nowIso)));
  }
  if (timer && dueMs != null) {
    // The timer may have fired between the check and the registration (a watcher fires a timer that is
    // due, e.g. one made with a past --at, as soon as its file appears): its fire's event then woke no
    // wait. Settle at once from that fire; one that comes later triggers the wait as usual.
    const ev = readAdmitted(home, ref.agent, fireEventId(timer.id, iso(dueMs)));
    if (ev) ({ doc } = await mutateWork(home, ref, ctx.nowMs, (d) => triggerWait(d, w.id, ev, nowIso)));
  }
  if (threadCommand) {
    // The command may have ended between the check and the registration: settle at once from its event.
    const { readCommand } = await import('../store/threads.js');
    const c = readCommand(home, threadCommand.agent, threadCommand.thread, threadCommand.command);
    const ev = c.status !== 'running' && c.event ? readAdmitted(home, threadCommand.agent, c.event) : null;
    if (ev) ({ doc } = await mutateWork(home, ref, ctx.nowMs, (d) => triggerWait(d, w.id, ev, nowIso)));
  }
  const saved = doc.item.waits.find((x) => x.id === w.id)!;
  return { registered: true, work_item: ref.id, wait: saved, timer: timer ? timerView(timer) : null, item: viewOf(doc), notes };
}
