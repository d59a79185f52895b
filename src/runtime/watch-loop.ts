import type { WakeReason as CoreWakeReason, RunRecord } from '../core/run-record.js';
import { isStopped } from '../store/agent-state.js';
import { readFocus } from '../store/focus.js';
import { listAgents, type Home } from '../store/home.js';
import { watchHome, type HomeWatcher } from '../store/home-watcher.js';
import { startIndexKeeper, type IndexKeeper } from './index-keeper-host.js';
import { writeWatcher, readWatcher } from '../store/watcher-lock.js';
import { locateWork, readWorkFile, type WorkRef } from '../store/work-store.js';
import { startIngress, type IngressServer } from './ingress-server.js';
import { cover, coveredByRuns, markResumed, newWorkWakes, operatorWakes, pendingWakes, recoverInterrupted, retries, type Covered } from './watch-reasons.js';
import { agentRunner, FAILED_RUNS, settingsOf, startRun, type RunHandle } from './run-agent.js';
import { retryPlan } from '../core/run-retry.js';
import { iso } from '../core/time.js';
import type { WatchSettings } from '../core/watch-settings.js';
import { listRuns } from '../store/runs.js';
import { endedLine } from './run-log.js';
import { nextDueMs, tick, type Wake } from './tick.js';
import { WATCH_ADMIT_SLICE } from './admission.js';
import { blockForBudget, dailyExhausted, itemGate } from './budget-gate.js';
import { describeFigures, isBudgetBlocker } from '../core/budget.js';

export interface WatchOptions {
  agents?: string[];
  once?: boolean;
  listen?: string | null;
  log: (line: string) => void;
  /** The clock retries are judged by (HOLON_NOW with --once, for tests); default the real time. */
  now?: () => number;
  /** With `--sync`: whether this watcher holds the agent's lease (others' agents are left alone). */
  serves?: (agent: string) => boolean;
  /** Called when a run ends (with `--sync`: sync its results at once). */
  onRunEnd?: () => void;
  /** Called after each batch of work file events the index keeper saw (the frontier answers are refreshed). */
  onIndexChange?: () => void;
  /** Where those refreshes run (the keeper tells commands: store/index-keeper-files.ts refresh_cwd); null: none. */
  indexRefreshCwd?: string | null;
}

interface Pending {
  reasons: CoreWakeReason[];
  wakes: RunRecord['wakes'];
  /** Interrupted run records this run will resume. */
  resumes: string[];
}

/** A run's end, whether or not it could be recorded (startFor logs a failure). */
const settled = (h: RunHandle) => h.done.then(() => undefined, () => undefined);

/** Longest setTimeout Node accepts; later due times are re-checked when it fires. */
const MAX_SLEEP = 2 ** 31 - 1;
const DEBOUNCE_MS = 15;

/**
 * The watch loop: one pass (tick: timers, rechecks, inbox events) whenever the home changes or
 * something falls due, then at most one run per agent for the reasons the pass found. It never polls.
 */
export class Watcher {
  readonly running = new Map<string, RunHandle>();
  /** Reasons waiting for their agent to be free, coalesced per item. */
  readonly queue = new Map<string, Map<string, Pending>>();
  readonly finished: RunRecord[] = [];
  ingress: IngressServer | null = null;
  private files: HomeWatcher | null = null;
  private keeper: IndexKeeper | null = null;
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private passing: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private covered: Covered;
  private said = new Set<string>();
  private stuck = 0;
  private seenEvents = new Set<string>();
  private poll: NodeJS.Timeout | null = null;
  readonly settings: WatchSettings;
  /** Items whose retry is not due yet (agent/item -> due ms): their wakes stay queued until then. */
  private holds = new Map<string, number>();
  private now: () => number;
  /** Budget blocks being written (an --once watcher waits for them before it exits). */
  private blocking = new Set<Promise<unknown>>();

  /** Logs a skip once per agent/item/message, so a pass on every file change does not repeat it. */
  private sayOnce(line: string): void {
    if (this.said.has(line)) return;
    this.said.add(line);
    this.opts.log(line);
  }

  constructor(readonly home: Home, readonly opts: WatchOptions) {
    this.settings = settingsOf(home);
    this.now = opts.now ?? Date.now;
    this.covered = coveredByRuns(home);
  }

  private agents(): string[] {
    const all = listAgents(this.home);
    return this.opts.agents?.length ? all.filter((a) => this.opts.agents!.includes(a)) : all;
  }

  async start(): Promise<void> {
    for (const w of recoverInterrupted(this.home, this.opts.agents)) this.enqueue(w.wake, w.resumes);
    this.covered = coveredByRuns(this.home);
    if (this.opts.listen) {
      this.ingress = await startIngress(this.home, this.opts.listen, () => this.requestPass(0), this.opts.log);
      const info = readWatcher(this.home);
      if (info) writeWatcher(this.home, { ...info, listen: this.ingress.address });
      this.opts.log(`ingress listening on http://${this.ingress.address}/hooks/<token>`);
    }
    if (!this.opts.once) {
      this.files = await watchHome(this.home, () => this.requestPass(DEBOUNCE_MS), (err) => this.fileWatchFailed(err));
      // Keeps the frontier's listing cheap while the watcher runs (runtime/index-keeper.ts).
      this.keeper = await startIndexKeeper(this.home, this.opts.log, { onChange: this.opts.onIndexChange, takeOver: true, refreshCwd: this.opts.indexRefreshCwd });
    }
    await this.pass();
  }

  /** Without file events (e.g. the inotify limit is reached) the home is re-read every 5 s instead. */
  private fileWatchFailed(err: Error): void {
    this.sayOnce(`file watching failed: ${err.message}; re-reading the home every 5s instead`);
    if (!this.poll) {
      this.poll = setInterval(() => this.requestPass(0), 5000);
    }
  }

  /** Schedules a pass soon (file changes arrive in bursts: a rename is several events). */
  requestPass(delayMs: number): void {
    if (this.stopping) return;
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.pass();
    }, delayMs);
  }

  /** One pass; a pass requested while one runs is done right after it. */
  pass(): Promise<void> {
    if (this.passing) {
      this.again = true;
      return this.passing;
    }
    this.passing = (async () => {
      do {
        this.again = false;
        await this.passOnce().catch((err) => this.opts.log(`pass failed: ${(err as Error).message}`));
      } while (this.again && !this.stopping);
    })().finally(() => {
      this.passing = null;
    });
    return this.passing;
  }

  private async passOnce(): Promise<void> {
    if (this.stopping) return;
    const agents = this.agents();
    const report = await tick(this.home, Date.now(), { agents, admitLimit: WATCH_ADMIT_SLICE });
    for (const t of report.timers_fired) {
      const late = (t as { late_ms?: number }).late_ms;
      this.opts.log(`timer ${t.timer} fired for ${t.agent}${t.work_item ? ` (${t.work_item})` : ''}${late !== undefined ? `, late ${late}ms` : ''}${t.missed_count ? `, ${t.missed_count} missed` : ''}`);
    }
    for (const e of report.events_admitted) this.opts.log(`event ${e.event} admitted for ${e.agent}: ${e.triggered.length ? `triggered ${e.triggered.map((t) => `${t.work_item}/${t.wait}`).join(', ')}` : e.joined.length ? `joined the pending wake of ${e.joined.map((t) => `${t.work_item}/${t.wait}`).join(', ')}` : 'nudge'}`);
    for (const r of report.rechecks_expired) this.opts.log(`recheck deadline of ${r.work_item}/${r.wait} passed`);
    for (const w of report.wakes) this.enqueue(w);
    for (const w of pendingWakes(this.home, agents, this.covered)) this.enqueue(w);
    for (const w of operatorWakes(this.home, agents, this.covered, this.seenEvents)) this.enqueue(w);
    const held = (a: string, id: string, why: string) => this.sayOnce(`not running ${a} on ${id} (new work) yet: ${why}`);
    for (const w of await newWorkWakes(this.home, agents, (a, id) => this.knownItem(a, id), held)) this.enqueue(w);
    this.queueRetries(agents);
    this.dispatch();
    const busy = report.timers_fired.length + report.events_admitted.length + report.rechecks_expired.length + report.tasks_finished.length + report.thread_commands_interrupted.length > 0;
    this.scheduleNext(agents, busy);
  }

  /** Wakes failed runs left pending: queued now; an item whose retry is not due yet is held until then. */
  private queueRetries(agents: string[]): void {
    const now = this.now();
    this.holds.clear();
    for (const r of retries(this.home, agents, this.settings.retry)) {
      if (this.running.get(r.agent)?.run.work_item === r.work_item) continue;
      for (const w of r.wakes) this.enqueue(w);
      if (r.plan.dueMs > now) {
        this.holds.set(`${r.agent}/${r.work_item}`, r.plan.dueMs);
        this.sayOnce(`not running ${r.agent} on ${r.work_item} yet: retry ${r.plan.failures} of ${this.settings.retry.limit} after ${r.plan.last.id} failed is due at ${iso(r.plan.dueMs)}`);
      }
    }
  }

  private knownItem(agent: string, id: string): boolean {
    const key = `${agent}/${id}`;
    return this.covered.items.has(key) || Boolean(this.queue.get(agent)?.has(id)) || this.running.get(agent)?.run.work_item === id;
  }

  /**
   * Sleeps until the next due time. Something still due right after a pass that did nothing (an event
   * whose lock another process holds) is retried with a growing delay, never in a tight loop.
   */
  private scheduleNext(agents: string[], busy: boolean): void {
    if (this.opts.once || this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const held = this.holds.size ? Math.min(...this.holds.values()) : null;
    const homeDue = nextDueMs(this.home, { agents, leasesAfterMs: Date.now() });
    // A retry is due on the watcher's clock; the sleep is on the real one.
    const retryDue = held === null ? null : Date.now() + Math.max(0, held - this.now());
    const due = homeDue === null ? retryDue : retryDue === null ? homeDue : Math.min(homeDue, retryDue);
    if (due === null) return;
    const overdue = due <= Date.now();
    this.stuck = overdue && !busy ? this.stuck + 1 : 0;
    const backoff = this.stuck ? Math.min(1000, 25 * 2 ** this.stuck) : 0;
    const delay = Math.min(MAX_SLEEP, Math.max(backoff, due - Date.now() + 1));
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.pass();
    }, delay);
  }

  /** Adds a reason to run an agent on an item; reasons for the same item coalesce into one run. */
  enqueue(w: Wake, resumes: string[] = []): void {
    let item = w.work_item;
    if (!item) {
      item = readFocus(this.home, w.agent).work_item;
      if (!item) {
        this.opts.log(`${w.reason} for ${w.agent} names no item and ${w.agent} has no focus: nothing to resume`);
        return;
      }
    }
    let q = this.queue.get(w.agent);
    if (!q) this.queue.set(w.agent, (q = new Map()));
    const p = q.get(item) ?? { reasons: [], wakes: [], resumes: [] };
    if (!p.reasons.includes(w.reason)) p.reasons.push(w.reason);
    const dup = p.wakes.some((x) => x.reason === w.reason && x.wait === w.wait && x.event === w.event && x.timer === w.timer);
    if (!dup) p.wakes.push({ reason: w.reason, ...(w.wait ? { wait: w.wait } : {}), ...(w.event ? { event: w.event } : {}), ...(w.timer ? { timer: w.timer } : {}) });
    p.resumes.push(...resumes);
    q.set(item, p);
  }

  /** Starts a run for every idle agent with a pending reason (one run per agent at a time). */
  dispatch(): void {
    if (this.stopping) return;
    for (const [agent, q] of this.queue) {
      if (this.running.has(agent) || q.size === 0) continue;
      if (isStopped(this.home, agent)) {
        // Stopping makes old continuations ineligible (SPEC 3): what is queued now is not kept for the
        // start. What is still owed then (new work, retries, wakes that come after the start) every
        // pass derives again from the records, as a restarted watcher does (watch-reasons.ts).
        for (const p of q.values()) markResumed(this.home, p.resumes, 'skipped');
        this.sayOnce(`not running ${agent}: it is stopped (holon agent start ${agent}); what wakes it meanwhile is not continued`);
        q.clear();
        continue;
      }
      if (this.opts.serves && !this.opts.serves(agent)) {
        // Another machine's watcher serves it: its reasons are that watcher's to handle.
        q.clear();
        continue;
      }
      const day = dailyExhausted(this.home, agent, this.now());
      if (day) {
        // The agent's day is spent: its reasons stay queued until the next day starts (home time zone).
        this.holds.set(`${agent}/*`, day.resetsMs);
        this.sayOnce(`not running ${agent}: budget_exhausted: its daily budget for ${day.day} (${day.timezone}) is spent: ${describeFigures(day.verdict, 'worst')}; runs resume at ${day.resets_at}`);
        continue;
      }
      for (const [item, pending] of q) {
        if ((this.holds.get(`${agent}/${item}`) ?? 0) > this.now()) continue;
        q.delete(item);
        if (this.startFor(agent, item, pending)) break;
      }
    }
  }

  private startFor(agent: string, id: string, p: Pending): boolean {
    let ref: WorkRef;
    let cfg;
    let timeoutMs: number;
    let budgetNote: string | null = null;
    try {
      ref = locateWork(this.home, id, agent);
      const item = readWorkFile(ref.file, ref.id).item;
      const skip = item.status === 'done' || item.status === 'deferred' ? `it is ${item.status}` : item.status === 'blocked' && item.blocker?.reason.startsWith('no progress')
          ? 'it is blocked for lack of progress'
          : item.status === 'blocked' && item.blocker?.reason.startsWith(FAILED_RUNS)
            ? `it is blocked after failed runs (holon reopen ${id} runs it again)`
            : item.status === 'blocked' && isBudgetBlocker(item.blocker)
              ? `${item.blocker!.reason} (holon edit ${id} --budget ... or holon reopen ${id})`
              : null;
      if (skip) {
        markResumed(this.home, p.resumes, 'skipped');
        this.sayOnce(`not running ${agent} on ${id} (${p.reasons.join('+')}): ${skip}`);
        return false;
      }
      ({ cfg, timeoutMs } = agentRunner(this.home, agent));
      const gate = itemGate(this.home, agent, item, this.now());
      if (gate.refuse) {
        markResumed(this.home, p.resumes, 'skipped');
        const b = blockForBudget(this.home, ref, this.now())
          .then((blocked) => this.sayOnce(`not running ${agent} on ${id} (${p.reasons.join('+')}): budget_exhausted: ${gate.reason}${blocked ? `; item blocked (holon edit ${id} --budget ... or holon reopen ${id})` : ''}`))
          .catch((err: Error) => this.sayOnce(`not running ${agent} on ${id}: budget_exhausted: ${gate.reason}; could not block it: ${err.message}`))
          .finally(() => this.blocking.delete(b));
        this.blocking.add(b);
        return false;
      }
      budgetNote = gate.note;
    } catch (err) {
      this.sayOnce(`not running ${agent} on ${id}: ${(err as Error).message}`);
      return false;
    }
    if (!cfg) {
      this.sayOnce(`not running ${agent} on ${id} (${p.reasons.join('+')}): no runner in its AGENTS.md`);
      return false;
    }
    let handle: RunHandle;
    try {
      const plan = retryPlan(listRuns(this.home, { agent, work: id }).filter((r) => r.work_item === id), this.settings.retry);
      const retry = plan && plan.failures > 0 ? { failures: plan.failures, limit: this.settings.retry.limit, last: plan.last.id, cause: plan.last.cause ?? plan.last.error } : undefined;
      handle = startRun(this.home, { agent, ref, reasons: p.reasons, wakes: p.wakes, retry, budgetNote }, cfg, timeoutMs);
    } catch (err) {
      this.sayOnce(`could not start ${agent} on ${id}: ${(err as Error).message}`);
      return false;
    }
    cover(this.covered, handle.run);
    this.running.set(agent, handle);
    markResumed(this.home, p.resumes, handle.run.id);
    this.opts.log(`run ${handle.run.id} started: ${agent} on ${id} (${p.reasons.join('+')}, ${cfg.preset})`);
    void handle.done.then((run) => {
      this.running.delete(agent);
      this.finished.push(run);
      // Only a run that ended ok consumed its wakes; after any other end they are pending again.
      if (run.status !== 'ok') this.covered = coveredByRuns(this.home);
      const plan = run.status === 'ok' ? null : retryPlan(listRuns(this.home, { agent, work: id }).filter((r) => r.work_item === id), this.settings.retry);
      this.opts.onRunEnd?.();
      this.opts.log(endedLine(run, plan, this.settings));
      if (!this.opts.once) this.requestPass(0);
    }, (err: Error) => {
      // Recording the end failed (e.g. local/runs is gone): say so and keep watching; the record still
      // says running, so a restart resumes the item once as interrupted.
      this.running.delete(agent);
      this.opts.log(`run ${handle.run.id} ended but could not be recorded: ${err.message}`);
      if (!this.opts.once) this.requestPass(0);
    });
    return true;
  }

  /** Resolves when no run is in flight. */
  async idle(): Promise<void> {
    while (this.running.size || this.blocking.size) {
      await Promise.all([...this.running.values()].map(settled));
      await Promise.all([...this.blocking]);
    }
  }

  /** Stops cleanly: no new runs, in-flight runs get `graceMs` to finish, then are killed and marked interrupted. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    if (this.poll) clearInterval(this.poll);
    await this.files?.close();
    await this.keeper?.stop();
    await this.ingress?.close();
    const inflight = [...this.running.values()];
    if (inflight.length) {
      this.opts.log(`waiting up to ${Math.round(graceMs / 1000)}s for ${inflight.length} run(s) to finish`);
      const all = Promise.all(inflight.map(settled));
      const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref())]);
      if (timedOut) {
        for (const h of this.running.values()) h.interrupt();
        await all;
      }
    }
    await this.passing;
    await Promise.all([...this.blocking]);
  }
}
