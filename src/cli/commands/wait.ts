import { randomBytes } from 'node:crypto';
import { invalid, notFound, usage } from '../../core/errors.js';
import { formatId } from '../../core/ids.js';
import { ceilSecond } from '../../core/schedule.js';
import { iso, parseDuration, parseIso, parseWhen } from '../../core/time.js';
import { addWait, cancelWait, resolveWait, triggerWait } from '../../core/transitions.js';
import type { Wait } from '../../core/types.js';
import { parseWaitFor, waitKey } from '../../core/wait-matching.js';
import { viewOf, workItemJson } from '../../core/workitem.js';
import { readAdmitted } from '../../store/event-store.js';
import { listAgents } from '../../store/home.js';
import { locateTask, readTask, type TaskRecord } from '../../store/tasks.js';
import { locateTimer, readTimerFile, timerFile } from '../../store/timers.js';
import { loadAgentWork } from '../../store/work-index.js';
import { mutateWork, readWorkFile, workFile, type WorkRef } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { targetItem } from '../work-args.js';
import { createTimerFor, timerView } from './timer.js';
import { cancelTimer } from '../../runtime/timers.js';

interface WaitOpts {
  for?: string;
  reason?: string;
  recheck?: string;
  in?: string;
  at?: string;
  cancel?: string;
  resolve?: string;
  json?: boolean;
}

/** Finds the item holding a wait id (the given item, else the agent's items, else every agent's). */
function locateWait(ctx: Ctx, waitId: string, id: string | undefined): WorkRef {
  if (!/^wt-[0-9a-z]+$/.test(waitId)) throw invalid(`"${waitId}" is not a wait id`, 'wait ids look like wt-4f2a9c1k; see `holon show ID`');
  const home = ctx.home();
  if (id) return targetItem(ctx, id);
  for (const a of listAgents(home)) {
    for (const item of loadAgentWork(home, a).items) {
      if (item.waits.some((w) => w.id === waitId)) return { agent: a, id: item.id, file: workFile(home, a, item.id) };
    }
  }
  throw notFound(`no wait "${waitId}"`, 'see the waits of an item with `holon show ID`');
}

/** A timer's fire and a task's result go to their own agent's inbox: a wait of another agent's item would never wake. */
function refuseOtherAgent(kind: 'task' | 'timer', id: string, owner: string, ref: WorkRef, fix: string): void {
  if (owner !== ref.agent) throw invalid(`${kind} ${id} belongs to agent "${owner}", but ${ref.id} is agent "${ref.agent}"'s: its ${kind === 'task' ? 'result' : 'fire'} would never wake this wait`, fix);
}

/** A fallback deadline before the timer is due would always expire the wait before its wake could come. */
function refuseEarlyRecheck(recheckMs: number | null, dueMs: number, given: string | undefined): void {
  if (recheckMs != null && recheckMs < dueMs) {
    throw invalid(`--recheck ${given} comes before the timer is due (${iso(dueMs)}): the wait would expire before its timer fires`, 'drop --recheck (the default comes after the due time), or give a later one');
  }
}

function taskResult(t: TaskRecord) {
  return { task: t.id, status: t.status, exit_code: t.exit_code, signal: t.signal, ended_at: t.ended_at, output_tail: t.output_tail };
}

export async function run(ctx: Ctx, args: string[], opts: WaitOpts): Promise<void> {
  const home = ctx.home();
  const nowIso = iso(ctx.nowMs);
  if (opts.cancel && opts.resolve) throw invalid('give either --cancel or --resolve, not both', 'cancel an active wait, or resolve a triggered one: holon wait --cancel WAIT_ID');
  if ((opts.cancel || opts.resolve) && (opts.for || opts.in || opts.at || opts.recheck)) {
    throw invalid(`--for, --in, --at and --recheck register a new wait, not with ${opts.cancel ? '--cancel' : '--resolve'}`, 'run two commands: one to settle the old wait, one to register the new one');
  }
  if (opts.cancel || opts.resolve) {
    const waitId = (opts.cancel ?? opts.resolve)!;
    const ref = locateWait(ctx, waitId, args[0]);
    const { doc, changed } = await mutateWork(home, ref, ctx.nowMs, (d) =>
      opts.cancel ? cancelWait(d, waitId, 'cancelled', nowIso) : resolveWait(d, waitId, nowIso),
    );
    const wait = doc.item.waits.find((w) => w.id === waitId)!;
    if (opts.json) return printJson({ work_item: ref.id, wait, changed });
    return out(`${waitId} ${wait.status}${changed ? '' : ' (unchanged)'}`);
  }
  if (!opts.for) throw usage('what does the item wait for? --for is missing', 'pass --for external:RESOURCE, task:HANDLE, timer:ID (or timer --in 2h) or operator');
  const target = parseWaitFor(opts.for);
  if (opts.reason === undefined) throw usage('--reason is missing', 'say why the item waits, e.g. --reason "CI run on the fix commit"');
  if (!opts.reason.trim()) throw invalid('--reason is empty', 'say why the item waits, e.g. --reason "CI run on the fix commit"');
  if ((opts.in || opts.at) && target.kind !== 'timer') throw invalid('--in/--at only go with --for timer', 'for a fallback deadline use --recheck');
  const ref = targetItem(ctx, args[0]);
  const item = readWorkFile(ref.file, ref.id).item;
  if (item.status === 'done') throw invalid(`${ref.id} is done; cannot wait on it`, 'a done item has nothing left to wait for; create a successor with `holon new`');
  // Checked before anything is created, so a refused wait leaves no timer behind.
  const explicitRecheck = opts.recheck ? ceilSecond(parseWhen(opts.recheck, ctx.nowMs, '--recheck')) : null;
  if (explicitRecheck != null && explicitRecheck <= ctx.nowMs) throw invalid(`--recheck ${opts.recheck} is in the past`, 'give a duration (6h) or a future ISO time');
  const fallback = parseDuration(home.config.default_recheck, 'default_recheck in holon.yaml');

  let dueMs: number | null = null;
  let timer = null;
  let createdTimer = false;
  if (target.kind === 'task') {
    target.resource = locateTask(home, target.resource);
    const t = readTask(home, target.resource);
    if (t.status !== 'running') {
      // The result is already there: return it at once and register nothing.
      if (opts.json) return printJson({ registered: false, work_item: ref.id, result: taskResult(t) });
      out(`${t.id} already ${t.status}: ${t.signal ? `killed by ${t.signal}` : `exit code ${t.exit_code}`} (nothing registered)`);
      if (t.output_tail) out(t.output_tail.replace(/\n$/, ''));
      return;
    }
    refuseOtherAgent('task', t.id, t.agent, ref, `start the task for this item: holon task run --work ${ref.id} -- CMD`);
  } else if (target.kind === 'timer') {
    if (!target.resource) {
      if (!opts.in && !opts.at) throw usage('--for timer needs a timer id or --in/--at', 'e.g. --for timer --in 2h, or --for timer:t-4f2a9c1k');
      refuseEarlyRecheck(explicitRecheck, ceilSecond(opts.in ? ctx.nowMs + parseDuration(opts.in, '--in') : parseIso(opts.at!, '--at')), opts.recheck);
      timer = await createTimerFor(ctx, ref.agent, { in: opts.in, at: opts.at, work: ref.id, summary: opts.reason });
      createdTimer = true;
      target.resource = timer.id;
    } else {
      if (opts.in || opts.at) throw invalid('give either a timer id or --in/--at, not both', 'e.g. --for timer --in 2h');
      const loc = locateTimer(home, target.resource, ref.agent);
      target.resource = loc.id;
      timer = readTimerFile(timerFile(home, loc.agent, loc.id), loc.id);
      refuseOtherAgent('timer', timer.id, loc.agent, ref, `create a timer for this item: holon wait ${ref.id} --for timer --in 2h --reason ...`);
      if (timer.status === 'cancelled') throw invalid(`timer ${timer.id} is cancelled`, 'create a new one: --for timer --in 2h');
      if (timer.status === 'fired') {
        if (opts.json) return printJson({ registered: false, work_item: ref.id, timer: timerView(timer) });
        return out(`${timer.id} already fired at ${timer.last_fired_at} (nothing registered)`);
      }
      if (timer.next_due_at) refuseEarlyRecheck(explicitRecheck, Date.parse(timer.next_due_at), opts.recheck);
    }
    dueMs = timer.next_due_at ? Date.parse(timer.next_due_at) : null;
  }

  const recheckMs = explicitRecheck ?? ceilSecond((dueMs ?? ctx.nowMs) + fallback);
  const wait: Wait = {
    id: formatId('wt', randomBytes(8)),
    kind: target.kind,
    resource: target.resource,
    reason: opts.reason.trim(),
    status: 'active',
    created_at: nowIso,
    recheck_at: iso(recheckMs),
    ...(target.kind === 'timer' && dueMs != null ? { due_at: iso(dueMs) } : {}),
    settled_at: null,
    settled_reason: null,
  };
  let doc;
  try {
    ({ doc } = await mutateWork(home, ref, ctx.nowMs, (d) => addWait(d, wait, nowIso)));
  } catch (err) {
    // The wait was refused (item done meanwhile, lock): the timer made for it must not live on.
    if (timer && createdTimer) await cancelTimer(home, ref.agent, timer.id, ctx.nowMs).catch(() => undefined);
    throw err;
  }
  if (target.kind === 'task') {
    // The task may have ended between the check and the registration: settle at once from its event.
    const t = readTask(home, target.resource);
    const ev = t.status !== 'running' && t.event ? readAdmitted(home, t.agent, t.event) : null;
    if (ev) ({ doc } = await mutateWork(home, ref, ctx.nowMs, (d) => triggerWait(d, wait.id, ev, nowIso)));
  }
  const saved = doc.item.waits.find((w) => w.id === wait.id)!;
  if (opts.json) return printJson({ registered: true, work_item: ref.id, wait: saved, timer: timer ? timerView(timer) : null, item: workItemJson(viewOf(doc)) });
  out(wait.id);
  note(`${ref.id} waits for ${waitKey(wait)}${timer?.next_due_at ? ` (due ${timer.next_due_at})` : ''}; recheck at ${wait.recheck_at}${saved.status !== 'active' ? `; already ${saved.status}` : ''}`);
}
