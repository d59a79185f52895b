import { invalid, usage } from '../../core/errors.js';
import { ceilSecond, nextSlot, type Timer } from '../../core/schedule.js';
import { humanDuration, iso, parseDuration, parseIso } from '../../core/time.js';
import { createTimer, listTimers, locateTimer, newTimerId } from '../../store/timers.js';
import { cancelTimer, checkSchedule } from '../../runtime/timers.js';
import { listAgents } from '../../store/home.js';
import type { Ctx } from '../context.js';
import { note, out, printJson, table } from '../output.js';
import { workTarget } from '../work-args.js';
import { readWorkFile, workFile } from '../../store/work-store.js';

/** A timer as --json shows it. */
export function timerView(t: Timer) {
  return { ...t };
}

/** Creates a timer for `agent` from --in/--at/--every/--until; shared by `timer add` and `wait --for timer`. */
export async function createTimerFor(ctx: Ctx, agent: string, o: { in?: string; at?: string; every?: string; until?: string; work?: string | null; summary?: string }): Promise<Timer> {
  if (Boolean(o.in) === Boolean(o.at)) throw usage('give exactly one of --in DURATION or --at ISO', 'e.g. --in 2h, or --at 2026-11-30T17:00:00Z');
  const firstMs = ceilSecond(o.in ? ctx.nowMs + parseDuration(o.in, '--in') : parseIso(o.at!, '--at'));
  const untilMs = o.until ? parseIso(o.until, '--until') : null;
  checkSchedule(firstMs, o.every, o.until, untilMs);
  const dueMs = nextSlot(firstMs, o.every ? parseDuration(o.every, '--every') : null, ctx.nowMs);
  if (dueMs !== firstMs) {
    // The slots before the timer existed were never missed: the series starts at its next slot on the grid.
    if (untilMs != null && dueMs > untilMs) throw invalid(`--until ${o.until} is past: this series has no slot left`, 'pick a later --until, or a later --at');
    note(`note: --at ${o.at} is already past; the first fire is the next slot on its grid, ${iso(dueMs)}`);
  } else if (o.at && dueMs < ctx.nowMs) note(`note: --at ${o.at} is already past; the timer fires on the next tick`);
  const t: Timer = {
    id: newTimerId(),
    agent,
    work_item: o.work ?? null,
    summary: o.summary?.trim() || null,
    status: 'active',
    created_at: iso(ctx.nowMs),
    first_due_at: iso(firstMs),
    every: o.every ?? null,
    until: untilMs == null ? null : iso(untilMs),
    next_due_at: iso(dueMs),
    last_fired_at: null,
    last_slot_at: null,
    fire_count: 0,
    missed_count: 0,
    cancelled_at: null,
    revision: 1,
  };
  await createTimer(ctx.home(), t);
  return t;
}

export async function runTimerAdd(ctx: Ctx, _args: string[], opts: { in?: string; at?: string; every?: string; until?: string; work?: string; summary?: string; json?: boolean }): Promise<void> {
  const { agent, work_item: work } = workTarget(ctx, opts.work);
  if (work && readWorkFile(workFile(ctx.home(), agent, work), work).item.status === 'done') {
    throw invalid(`${work} is done: a timer for it could only wake the agent for nothing`, 'create the follow-up item (`holon new`) and set the timer on it');
  }
  const t = await createTimerFor(ctx, agent, { ...opts, work });
  if (opts.json) return printJson(timerView(t));
  out(t.id);
  note(`timer ${t.id} due ${t.next_due_at}${t.every ? `, every ${t.every}${t.until ? ` until ${t.until}` : ''}` : ''}${work ? ` for ${work}` : ''}; wait on it with \`holon wait ${work ?? 'ID'} --for timer:${t.id} --reason ...\``);
}

export function runTimerList(ctx: Ctx, _args: string[], opts: { all?: boolean; json?: boolean }): void {
  const home = ctx.home();
  const agent = ctx.agent();
  const { timers, problems } = listTimers(home, agent);
  const shown = timers.filter((t) => opts.all || t.status === 'active').sort((a, b) => (a.next_due_at ?? '~').localeCompare(b.next_due_at ?? '~') || a.id.localeCompare(b.id));
  if (opts.json) return printJson({ agent, timers: shown.map(timerView), problems });
  if (!shown.length) out(`no ${opts.all ? '' : 'active '}timers for ${agent}${opts.all ? '' : ' (--all shows fired and cancelled ones)'}`);
  else {
    out(table([
      ['ID', 'STATUS', 'NEXT DUE', 'EVERY', 'FIRES', 'MISSED', 'WORK', 'SUMMARY'],
      ...shown.map((t) => [t.id, t.status, t.next_due_at ? `${t.next_due_at} (${humanDuration(Date.parse(t.next_due_at) - ctx.nowMs)})` : '-', t.every ?? '-', String(t.fire_count), String(t.missed_count), t.work_item ?? '-', t.summary ?? '']),
    ]));
  }
  for (const p of problems) note(`holon: ${p.file}:${p.line}: ${p.message} (run \`holon check\`)`);
}

export async function runTimerCancel(ctx: Ctx, args: string[], opts: { json?: boolean }): Promise<void> {
  const home = ctx.home();
  let agent: string | undefined;
  try {
    agent = ctx.agent();
  } catch {
    agent = listAgents(home)[0];
  }
  const loc = locateTimer(home, args[0], agent);
  const r = await cancelTimer(home, loc.agent, loc.id, ctx.nowMs);
  if (opts.json) return printJson({ timer: timerView(r.timer), outcome: r.outcome, settled: r.settled });
  out(`${loc.id} ${r.outcome.replace('_', ' ')}`);
  for (const s of r.settled) note(`wait ${s.wait} of ${s.work_item} settled timer_cancelled; ${s.work_item} is blocked until someone acts (holon reopen ${s.work_item})`);
}
