import { CHANNELS } from '../core/frontier-codes.js';
import type { FrontierEntry } from '../core/frontier.js';
import type { RunRecord } from '../core/run-record.js';
import { humanDuration, iso } from '../core/time.js';
import type { Wait } from '../core/types.js';
import { isLive, waitKey } from '../core/wait-matching.js';
import type { AgentSnapshot, HomeSnapshot } from '../ops/home-snapshot.js';
import { oneLine, stripEscapes } from './sanitize.js';

/**
 * The dashboard's view model: a pure function from a home snapshot, the person's selection and a clock
 * to plain rows. Components only lay these out; every countdown and every cleaned string is made here.
 */

export type ChannelName = (typeof CHANNELS)[number];

export const CHANNEL_TITLES: Record<ChannelName, string> = {
  runnable: 'runnable',
  needs_decision: 'needs decision',
  needs_action: 'needs action',
  waiting: 'waiting',
  resume_candidates: 'resume candidates',
  not_runnable: 'not runnable',
};

export interface AgentRow {
  name: string;
  selected: boolean;
  focus: string | null;
  focus_title: string | null;
  state: 'running' | 'idle' | 'stopped';
  /** Why: the live run and its wake, or what the agent is idle for. */
  state_text: string;
  runs_today: number;
  tokens_in: number;
  tokens_out: number;
}

export interface ItemRow {
  id: string;
  title: string;
  channel: ChannelName;
  code: string;
  detail: string;
  priority: string | null;
  focus: boolean;
  selected: boolean;
  /** A pending user_gate: approve/reject apply. */
  gate: boolean;
  /** Blocked or deferred: reopen applies. */
  reopenable: boolean;
}

export interface ChannelView {
  name: ChannelName;
  title: string;
  count: number;
  items: ItemRow[];
}

export interface WaitRow {
  item: string;
  id: string;
  kind: string;
  resource: string;
  reason: string;
  status: string;
  /** "recheck in 5h 59m", "due in 2m", "recheck overdue by 3m", "woken". */
  countdown: string;
}

export interface TimerRow {
  id: string;
  work_item: string | null;
  summary: string;
  due_at: string;
  countdown: string;
  every: string | null;
}

export interface RunView {
  id: string;
  item: string;
  reasons: string;
  status: string;
  live: boolean;
  started_at: string;
  elapsed: string;
  log: string[];
}

export interface EventRow {
  id: string;
  at: string;
  source: string;
  mode: string;
  resource: string;
  provenance: string;
  work_item: string | null;
  status: string;
  disposition: string;
  /** The payload with escape sequences stripped, on one line; null when none. */
  payload: string | null;
  /** Outside data (anything but an operator's message): shown as data, never as an instruction. */
  untrusted: boolean;
}

export interface DashView {
  now: string;
  home: string;
  watcher: { up: boolean; pid: number | null; since: string | null; listen: string | null };
  agents: AgentRow[];
  agent: string | null;
  channels: ChannelView[];
  /** Every listed item in display order (what up/down moves through). */
  order: string[];
  selected: ItemRow | null;
  waits: WaitRow[];
  timers: TimerRow[];
  run: RunView | null;
  events: EventRow[];
  problems: number;
}

export interface Selection {
  agent: string | null;
  item: string | null;
}

export interface ViewOptions {
  /** Lines of the run log to keep (the follow pane asks for more). */
  logLines?: number;
  events?: number;
  timers?: number;
}

const countdown = (targetMs: number, nowMs: number) => humanDuration(Math.max(0, targetMs - nowMs));

function dueText(label: string, at: string | null, nowMs: number): string {
  if (!at) return '';
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) return `${label} at ${at}`;
  return ms > nowMs ? `${label} in ${countdown(ms, nowMs)}` : `${label} overdue by ${humanDuration(nowMs - ms)}`;
}

/** A run is live while its record says running and the watcher that started it is alive. */
const isLiveRun = (snap: HomeSnapshot, r: RunRecord) => snap.live_runs.includes(r.id);

function agentRow(snap: HomeSnapshot, a: AgentSnapshot, selected: boolean, nowMs: number): AgentRow {
  const today = iso(nowMs).slice(0, 10);
  const todays = a.runs.filter((r) => r.started_at.slice(0, 10) === today);
  let tin = 0;
  let tout = 0;
  for (const r of todays) {
    if (!r.tokens) continue;
    tin += r.tokens.uncached_input + r.tokens.cache_read + r.tokens.cache_write;
    tout += r.tokens.output;
  }
  const live = a.runs.find((r) => isLiveRun(snap, r));
  const f = a.frontier;
  let state: AgentRow['state'] = 'idle';
  let text: string;
  if (live) {
    state = 'running';
    text = `running ${live.id} for ${live.reasons.join('+')} on ${live.work_item} (${humanDuration(Math.max(0, nowMs - Date.parse(live.started_at)))})`;
  } else if (a.stopped) {
    state = 'stopped';
    text = `stopped: no runs until \`holon agent start ${a.name}\``;
  } else if (f.counts.needs_decision) text = `idle: ${f.counts.needs_decision} decision(s) wait for a person`;
  else if (f.counts.resume_candidates) text = `idle: ${f.counts.resume_candidates} woken item(s) to resume${snap.watcher ? '' : ' (no watcher)'}`;
  else if (f.counts.runnable) text = `idle: ${f.counts.runnable} runnable${snap.watcher ? '' : ' (no watcher to start them)'}`;
  else if (f.counts.waiting) text = `idle: waiting on ${f.counts.waiting} item(s)`;
  else text = 'idle: nothing to do';
  const focusItem = a.focus ? a.items.find((i) => i.id === a.focus) : undefined;
  return {
    name: a.name, selected, focus: a.focus, focus_title: focusItem ? oneLine(focusItem.title) : null, state, state_text: text,
    runs_today: todays.length, tokens_in: tin, tokens_out: tout,
  };
}

function itemRow(a: AgentSnapshot, e: FrontierEntry, channel: ChannelName, selectedId: string | null): ItemRow {
  return {
    id: e.id, title: oneLine(e.title), channel, code: e.code, detail: oneLine(e.detail), priority: e.priority,
    focus: a.focus === e.id, selected: e.id === selectedId,
    gate: channel === 'needs_decision' && e.class === 'user_gate',
    reopenable: e.status === 'blocked' || e.status === 'deferred' || e.code === 'blocked',
  };
}

function waitRows(a: AgentSnapshot, nowMs: number): WaitRow[] {
  const timerDue = new Map(a.timers.map((t) => [`timer:${t.id}`, t.next_due_at]));
  const rows: Array<WaitRow & { sort: number }> = [];
  for (const item of a.items) {
    if (item.status === 'done') continue;
    for (const w of item.waits as Wait[]) {
      if (!isLive(w)) continue;
      const key = waitKey(w);
      let text: string;
      let at = w.recheck_at;
      if (w.status === 'triggered') text = `woken${w.settled_by ? ` by ${w.settled_by.source}` : ''}${w.settled_at ? ` at ${w.settled_at}` : ''}`;
      else if (w.kind === 'timer' && timerDue.get(key)) text = dueText('due', (at = timerDue.get(key)!), nowMs);
      else text = dueText('recheck', at, nowMs) || 'no recheck';
      const sort = w.status === 'triggered' ? -Infinity : at ? Date.parse(at) : Infinity;
      rows.push({ item: item.id, id: w.id, kind: w.kind, resource: oneLine(key), reason: oneLine(w.reason), status: w.status, countdown: text, sort });
    }
  }
  rows.sort((x, y) => x.sort - y.sort || x.item.localeCompare(y.item) || x.id.localeCompare(y.id));
  return rows.map(({ sort: _s, ...r }) => r);
}

function timerRows(a: AgentSnapshot, nowMs: number, limit: number): TimerRow[] {
  return a.timers
    .filter((t) => t.status === 'active' && t.next_due_at)
    .sort((x, y) => x.next_due_at!.localeCompare(y.next_due_at!) || x.id.localeCompare(y.id))
    .slice(0, limit)
    .map((t) => ({ id: t.id, work_item: t.work_item, summary: oneLine(t.summary ?? ''), due_at: t.next_due_at!, countdown: dueText('due', t.next_due_at, nowMs), every: t.every }));
}

function runView(snap: HomeSnapshot, a: AgentSnapshot, nowMs: number, logLines: number): RunView | null {
  const r = a.runs.find((x) => isLiveRun(snap, x)) ?? a.runs[a.runs.length - 1];
  if (!r) return null;
  const live = isLiveRun(snap, r);
  const ms = live ? nowMs - Date.parse(r.started_at) : r.duration_ms ?? 0;
  const lines = stripEscapes(snap.log_tails[r.id] ?? '').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return {
    id: r.id, item: r.work_item, reasons: r.reasons.join('+'), status: live ? 'running' : r.status, live, started_at: r.started_at,
    elapsed: humanDuration(Math.max(0, ms)), log: lines.slice(-logLines),
  };
}

function eventRows(a: AgentSnapshot, limit: number): EventRow[] {
  return a.events.slice(-limit).reverse().map((e) => ({
    id: e.id, at: e.admitted_at ?? e.created_at, source: e.source, mode: e.mode, resource: oneLine(e.resource), provenance: oneLine(e.provenance),
    work_item: e.work_item, status: e.status,
    disposition: e.status === 'queued' ? 'queued' : e.disposition?.triggered.length ? `triggered ${e.disposition.triggered.map((t) => `${t.wait} of ${t.work_item}`).join(', ')}` : 'nudged',
    payload: e.payload == null ? null : oneLine(e.payload),
    untrusted: e.source !== 'operator',
  }));
}

/** The whole dashboard as plain data: `now` drives every countdown and elapsed time. */
export function buildView(snap: HomeSnapshot, sel: Selection, nowMs: number, opts: ViewOptions = {}): DashView {
  const current = snap.agents.find((a) => a.name === sel.agent) ?? snap.agents[0] ?? null;
  const channels: ChannelView[] = [];
  const order: string[] = [];
  if (current) {
    const f = current.frontier;
    const ids = CHANNELS.flatMap((c) => f[c].map((e) => e.id));
    const selectedId = sel.item && ids.includes(sel.item) ? sel.item : ids[0] ?? null;
    for (const c of CHANNELS) {
      const items = f[c].map((e) => itemRow(current, e, c, selectedId));
      order.push(...items.map((i) => i.id));
      channels.push({ name: c, title: CHANNEL_TITLES[c], count: f.counts[c], items });
    }
  }
  const selected = channels.flatMap((c) => c.items).find((i) => i.selected) ?? null;
  return {
    now: iso(nowMs),
    home: snap.home,
    watcher: { up: Boolean(snap.watcher), pid: snap.watcher?.pid ?? null, since: snap.watcher?.started_at ?? null, listen: snap.watcher?.listen ?? null },
    agents: snap.agents.map((a) => agentRow(snap, a, a === current, nowMs)),
    agent: current?.name ?? null,
    channels,
    order,
    selected,
    waits: current ? waitRows(current, nowMs) : [],
    timers: current ? timerRows(current, nowMs, opts.timers ?? 5) : [],
    run: current ? runView(snap, current, nowMs, opts.logLines ?? 6) : null,
    events: current ? eventRows(current, opts.events ?? 6) : [],
    problems: snap.problems,
  };
}

/** The selection after moving `delta` items from `from` (default: the selected one), clamped; by id so it survives a refresh. */
export function moveItem(view: DashView, delta: number, from: string | null = view.selected?.id ?? null): string | null {
  if (!view.order.length) return null;
  const at = from ? view.order.indexOf(from) : -1;
  const next = Math.min(view.order.length - 1, Math.max(0, at + delta));
  return view.order[next];
}

/** The next (or previous) agent, wrapping around. */
export function moveAgent(view: DashView, delta: number): string | null {
  if (!view.agents.length) return null;
  const at = Math.max(0, view.agents.findIndex((a) => a.selected));
  return view.agents[(at + delta + view.agents.length) % view.agents.length].name;
}
