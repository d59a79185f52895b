import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyLine, noProgressStreak, type RunRecord, type WakeReason } from '../core/run-record.js';
import { renderResume } from '../core/resume.js';
import { iso } from '../core/time.js';
import { appendHistory } from '../core/workitem.js';
import { readAgent } from '../store/agents.js';
import { readAdmitted } from '../store/event-store.js';
import type { Home } from '../store/home.js';
import { resumeContextFor } from '../store/resume-context.js';
import { forgetSession, lastSession, lastSessionTotals, listRuns, newRunId, rememberSession, runLogFile, runsDir, writeRun } from '../store/runs.js';
import { mutateWork, readWorkFile, type WorkRef } from '../store/work-store.js';
import { perRun } from '../core/runner-output.js';
import { invocation, runnerConfig, startProcess, type ProcessOutcome, type RunnerConfig } from './runners.js';
import { parseDuration } from '../core/time.js';

/** One reason to run an agent on an item, with what caused it. */
export interface RunJob {
  agent: string;
  ref: WorkRef;
  reasons: WakeReason[];
  wakes: RunRecord['wakes'];
}

export interface RunHandle {
  run: RunRecord;
  done: Promise<RunRecord>;
  /** Stops the run (shutdown): kills its process group and records it as interrupted. */
  interrupt(): void;
}

const BIN = fileURLToPath(new URL('../../bin/holon.js', import.meta.url));

/** A `holon` on PATH for runners (local/bin/holon), the same build as the watcher that starts them. */
function holonShimDir(home: Home): string {
  const dir = join(home.local, 'bin');
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, 'holon');
  const text = `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`;
  let current = '';
  try {
    current = readFileSync(shim, 'utf8');
  } catch {
    // not written yet
  }
  if (current !== text) {
    writeFileSync(shim, text);
    chmodSync(shim, 0o755);
  }
  return dir;
}

export function agentRunner(home: Home, agent: string): { cfg: RunnerConfig | null; timeoutMs: number } {
  const profile = readAgent(home, agent);
  const cfg = runnerConfig(profile.config, profile.file);
  const policy = (profile.config.policy ?? {}) as Record<string, unknown>;
  const timeout = String(policy.run_timeout ?? home.config.watch.run_timeout);
  return { cfg, timeoutMs: parseDuration(timeout, 'run_timeout') };
}

function revisionOf(ref: WorkRef): number | null {
  try {
    return readWorkFile(ref.file, ref.id).item.revision;
  } catch {
    return null;
  }
}

/**
 * Starts one run: the resume prompt of the item, the runner from AGENTS.md, a run record in
 * local/runs. When it ends: parse what the runner reported, compare the item's revision (a run that
 * leaves it unchanged made no progress; after the limit the item is blocked), add one History line.
 */
export function startRun(home: Home, job: RunJob, cfg: RunnerConfig, timeoutMs: number): RunHandle {
  const startMs = Date.now();
  const id = newRunId();
  const session = cfg.preset === 'command' ? null : lastSession(home, job.agent, job.ref.id, cfg.preset);
  const revisionBefore = revisionOf(job.ref);
  const context = resumeContextFor(home, job.ref, startMs);
  const why = job.wakes.map((w) => `${w.reason}${w.wait ? ` (wait ${w.wait})` : ''}${w.timer ? ` (timer ${w.timer})` : ''}${w.event ? ` (event ${w.event})` : ''}`);
  // An operator message that woke no wait is not in the record's waits: give its text here.
  const messages = job.wakes
    .filter((w) => w.reason === 'operator_message' && w.event && !w.wait)
    .map((w) => readAdmitted(home, job.agent, w.event!))
    .filter((ev) => ev?.source === 'operator' && ev.payload)
    .map((ev) => `\nMessage from the operator (event ${ev!.id}, ${ev!.created_at}):\n\n${ev!.payload}\n`);
  const prompt = `${renderResume(context)}\n## Why you run now\n\nholon watch started run ${id} for: ${why.join(', ') || job.reasons.join(', ')}.\n${messages.join('')}`;
  const run: RunRecord = {
    id,
    agent: job.agent,
    work_item: job.ref.id,
    reason: job.reasons[0],
    reasons: job.reasons,
    wakes: job.wakes,
    runner: cfg.preset,
    watcher_pid: process.pid,
    pid: null,
    started_at: iso(startMs),
    ended_at: null,
    duration_ms: null,
    status: 'running',
    exit_code: null,
    signal: null,
    error: null,
    session_id: session,
    resumed_session: session,
    tokens: null,
    cost_usd: null,
    revision_before: revisionBefore,
    revision_after: null,
    progress: null,
    blocked: false,
    resumed_by: null,
  };
  mkdirSync(runsDir(home), { recursive: true });
  writeRun(home, run);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${holonShimDir(home)}${delimiter}${process.env.PATH ?? ''}`,
    HOLON_HOME: home.dir,
    HOLON_AGENT: job.agent,
    HOLON_WORK_ITEM: job.ref.id,
    HOLON_RUN_ID: id,
    HOLON_WAKE: job.reasons.join(','),
    HOLON_ACTOR: `agent:${job.agent}`,
  };
  delete env.HOLON_NOW;
  const proc = startProcess(invocation(cfg, prompt, session), { cwd: home.root, env, timeoutMs, logFile: runLogFile(home, id) });
  run.pid = proc.pid;
  writeRun(home, run);
  let interrupted = false;
  const done = proc.done.then((o) => finishRun(home, job.ref, run, cfg, o, interrupted, startMs));
  return {
    run,
    done,
    interrupt() {
      interrupted = true;
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 1500).unref();
    },
  };
}

async function finishRun(home: Home, ref: WorkRef, run: RunRecord, cfg: RunnerConfig, o: ProcessOutcome, interrupted: boolean, startMs: number): Promise<RunRecord> {
  const endMs = Date.now();
  const report = cfg.preset === 'command' ? null : perRun(invocation(cfg, '', null).parse!(o.stdout), lastSessionTotals(home, run.agent, run.work_item, cfg.preset, run.resumed_session));
  run.ended_at = iso(endMs);
  run.duration_ms = endMs - startMs;
  run.exit_code = o.exit_code;
  run.signal = o.signal;
  if (report) {
    run.session_id = report.session_id ?? run.session_id;
    run.tokens = report.tokens;
    run.cost_usd = report.cost_usd;
  }
  if (interrupted) run.status = 'interrupted';
  else if (o.timed_out) run.status = 'timeout';
  else if (o.spawn_error || o.exit_code !== 0 || (report && !report.ok)) run.status = 'error';
  else run.status = 'ok';
  if (run.status === 'timeout') run.error = 'no result within the run timeout; its process group was killed';
  else if (o.spawn_error) run.error = o.spawn_error;
  else if (report && !report.ok) run.error = report.error;
  else if (run.status === 'error') run.error = o.signal ? `killed by ${o.signal}` : `exit ${o.exit_code}`;
  // Progress is judged on the record as the run left it, before this watcher's own History line.
  run.revision_after = revisionOf(ref);
  run.progress = interrupted || run.revision_after === null || run.revision_before === null ? null : run.revision_after !== run.revision_before;
  if (run.progress === false) {
    const limit = home.config.watch.no_progress_limit;
    const streak = noProgressStreak([...listRuns(home, { agent: run.agent, work: run.work_item }).filter((r) => r.id !== run.id && r.work_item === run.work_item), run]);
    if (limit > 0 && streak >= limit) run.blocked = true;
  }
  if (run.revision_after !== null) {
    try {
      await mutateWork(home, ref, endMs, (doc) => {
        let next = appendHistory(doc, { at: iso(endMs), text: historyLine(run) });
        if (run.blocked && doc.item.status === 'open') {
          const reason = `no progress: ${home.config.watch.no_progress_limit} runs in a row left this record unchanged (last: ${run.id}, ${run.reasons.join('+')})`;
          next = { ...next, item: { ...next.item, status: 'blocked', blocker: { reason, recovery: `see \`holon runs --work ${run.work_item}\` and the run logs in local/runs/; fix what stops the agent, then clear the blocker and reopen the item`, since: iso(endMs) } } };
        } else if (run.blocked) {
          run.blocked = false;
        }
        return next;
      });
    } catch (err) {
      run.error = run.error ?? `could not add the History line: ${(err as Error).message}`;
    }
  }
  if (cfg.preset !== 'command' && report) {
    // A resume the runner could not even report on (the session is gone) starts afresh next time.
    if (report.session_id) await rememberSession(home, run.agent, run.work_item, cfg.preset, report.session_id, run.id, endMs, report.totals).catch(() => undefined);
    else if (run.resumed_session && run.status === 'error') await forgetSession(home, run.agent, run.work_item).catch(() => undefined);
  }
  writeRun(home, run);
  return run;
}
