import { describe, expect, it } from 'vitest';
import { judgeRun, type JudgeInput } from '../../src/core/run-judgement.js';
import { noProgressStreak, runOrder, sumRuns, type RunRecord } from '../../src/core/run-record.js';
import { retryDelayMs, retryPlan } from '../../src/core/run-retry.js';
import type { RunnerReport } from '../../src/core/runner-output.js';
import { DEFAULT_WATCH, watchConfig, watchSettings } from '../../src/core/watch-settings.js';

const end = { exit_code: 0, signal: null, timed_out: false, spawn_error: null, interrupted: false };
const report = (r: Partial<RunnerReport> = {}): RunnerReport => ({ session_id: 's', ok: true, error: null, tokens: null, cost_usd: null, result: null, ...r });
const judge = (i: Partial<JudgeInput> & { end?: Partial<JudgeInput['end']> }) =>
  judgeRun({ runner: 'command', report: null, progress: true, ...i, end: { ...end, ...i.end } });

describe('judgeRun: a run is judged by what happened', () => {
  const cases: Array<[string, Partial<JudgeInput> & { end?: Partial<JudgeInput['end']> }, { status: string; outside: boolean; cause: RegExp | null }]> = [
    ['a clean exit', {}, { status: 'ok', outside: false, cause: null }],
    ['a clean exit that changed nothing', { progress: false }, { status: 'ok', outside: false, cause: null }],
    ['stopped by the watcher', { end: { interrupted: true, signal: 'SIGTERM', exit_code: null } }, { status: 'interrupted', outside: true, cause: /stopped by the watcher/ }],
    ['past its timeout', { end: { timed_out: true, signal: 'SIGTERM', exit_code: null }, timeout: '1s' }, { status: 'timeout', outside: true, cause: /run timeout \(1s\); its process group was killed$/ }],
    ['past its timeout while its model API failed', { runner: 'codex', report: report({ ok: false, outside: true, error: 'Reconnecting... waiting for network' }), end: { timed_out: true, signal: 'SIGKILL', exit_code: null }, timeout: '30m' }, { status: 'timeout', outside: true, cause: /^no result within the run timeout \(30m\); its process group was killed; the runner last said: Reconnecting\.\.\. waiting for network$/ }],
    ['past its timeout with no word from the runner', { runner: 'claude', report: report({ ok: false, outside: false, error: 'no JSON result from claude' }), end: { timed_out: true, signal: 'SIGKILL', exit_code: null }, timeout: '5s' }, { status: 'timeout', outside: true, cause: /^no result within the run timeout \(5s\); its process group was killed$/ }],
    ['a missing binary', { runner: 'claude', report: report({ ok: false, error: 'no JSON result' }), end: { spawn_error: 'spawn claude ENOENT', exit_code: null } }, { status: 'error', outside: true, cause: /^runner not found: spawn claude ENOENT/ }],
    ['another spawn error', { end: { spawn_error: 'spawn EACCES', exit_code: null } }, { status: 'error', outside: true, cause: /^could not start the runner: spawn EACCES/ }],
    ['killed by a signal', { end: { signal: 'SIGKILL', exit_code: null } }, { status: 'error', outside: true, cause: /^killed by SIGKILL$/ }],
    ['a command the shell saw killed (exit 128+9)', { end: { exit_code: 137 }, lastLine: 'Killed' }, { status: 'error', outside: true, cause: /^killed by SIGKILL \(exit 137\)$/ }],
    ['exit 137 of codex is its own', { runner: 'codex', report: report(), end: { exit_code: 137 } }, { status: 'error', outside: false, cause: /^exit 137$/ }],
    ['an API error the runner reported', { runner: 'claude', report: report({ ok: false, outside: true, error: 'API Error: 500 overloaded' }), end: { exit_code: 1 } }, { status: 'error', outside: true, cause: /^API Error: 500 overloaded$/ }],
    ['an API error with exit 0', { runner: 'codex', report: report({ ok: false, outside: true, error: 'stream disconnected' }) }, { status: 'error', outside: true, cause: /stream disconnected/ }],
    ['a shell that cannot find the command', { end: { exit_code: 127 }, lastLine: 'sh: 1: ./agent.sh: not found' }, { status: 'error', outside: true, cause: /^runner command not found \(exit 127\): sh: 1: \.\/agent\.sh: not found$/ }],
    ['a command that is not executable', { end: { exit_code: 126 } }, { status: 'error', outside: true, cause: /^runner command not executable \(exit 126\)$/ }],
    ['exit 127 of claude is its own', { runner: 'claude', report: report({ ok: false, error: 'x' }), end: { exit_code: 127 } }, { status: 'error', outside: false, cause: /^exit 127: x$/ }],
    ['a non-zero exit, with the last log line', { end: { exit_code: 1 }, lastLine: 'fatal: tests failed' }, { status: 'error', outside: false, cause: /^exit 1: fatal: tests failed$/ }],
    ['a bare non-zero exit', { end: { exit_code: 3 } }, { status: 'error', outside: false, cause: /^exit 3$/ }],
    ['no parseable output', { runner: 'codex', report: report({ ok: false, error: 'no JSONL events from codex' }) }, { status: 'error', outside: false, cause: /^no JSONL events from codex$/ }],
    ['denied tool calls in a run that changed nothing', { runner: 'claude', progress: false, report: report({ problems: ['denied: Bash(holon progress w-1 x)', 'denied: Bash(ls)'] }) }, { status: 'error', outside: false, cause: /^denied: Bash\(holon progress w-1 x\) \(and 1 more\)$/ }],
    ['problems in a run that made progress', { runner: 'codex', progress: true, report: report({ problems: ['bash: holon: command not found'] }) }, { status: 'ok', outside: false, cause: /^ok, with problems: bash: holon: command not found$/ }],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      const j = judge(input);
      expect(j.status).toBe(want.status);
      expect(j.outside).toBe(want.outside);
      if (want.cause === null) expect(j.cause).toBeNull();
      else expect(j.cause).toMatch(want.cause);
    });
  }

  it('keeps the problems, one line each, and the cause to one line', () => {
    const j = judge({ runner: 'claude', progress: false, report: report({ problems: ['denied:\n  Bash(rm -rf /)'] }), end: { exit_code: 1 }, lastLine: 'x'.repeat(1000) });
    expect(j.problems).toEqual(['denied: Bash(rm -rf /)']);
    expect(j.cause!.length).toBeLessThanOrEqual(300);
    expect(j.cause).not.toContain('\n');
  });
});

let n = 0;
function run(status: RunRecord['status'], o: Partial<RunRecord> = {}): RunRecord {
  n++;
  const started = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString().replace('.000Z', 'Z');
  return {
    id: `r-${n}`, agent: 'a', work_item: 'w-1', reason: 'wait_triggered', reasons: ['wait_triggered'], wakes: [{ reason: 'wait_triggered', wait: 'wt-1', event: 'e-1' }],
    runner: 'command', watcher_pid: 1, pid: 1, started_at: started, ended_at: status === 'running' ? null : started, duration_ms: 0, status, exit_code: 0, signal: null,
    error: null, session_id: null, resumed_session: null, tokens: null, cost_usd: null, revision_before: 1, revision_after: 1, progress: false, blocked: false, resumed_by: null, ...o,
  };
}

describe('retryPlan: the retry a failed run owes, from the records', () => {
  const s = { limit: 3, delayMs: 30_000, maxDelayMs: 100_000 };

  it('grows the delay by doubling, up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((f) => retryDelayMs(s, f))).toEqual([30_000, 60_000, 100_000, 100_000, 100_000]);
    expect(retryDelayMs(s, 1000)).toBe(100_000);
  });

  it('owes nothing after a success, or while a run is in flight', () => {
    expect(retryPlan([], s)).toBeNull();
    expect(retryPlan([run('error'), run('ok')], s)).toBeNull();
    expect(retryPlan([run('error'), run('running')], s)).toBeNull();
  });

  it('counts failures in a row since the last success, skips interrupted runs, and keeps every wake', () => {
    const a = run('ok');
    const b = run('error', { wakes: [{ reason: 'new_work' }], reasons: ['new_work'] });
    const c = run('interrupted');
    const d = run('timeout');
    const plan = retryPlan([a, b, c, d], s)!;
    expect(plan.failures).toBe(2);
    expect(plan.last.id).toBe(d.id);
    expect(plan.dueMs).toBe(Date.parse(d.ended_at!) + 60_000);
    expect(plan.reasons).toEqual(['new_work', 'wait_triggered']);
    expect(plan.wakes).toEqual([{ reason: 'new_work' }, { reason: 'wait_triggered', wait: 'wt-1', event: 'e-1' }]);
  });

  it('after a block, owes a retry at once (once reopened) and counts again from zero', () => {
    const blocked = run('error', { blocked: true });
    const plan = retryPlan([run('error'), blocked], s)!;
    expect(plan).toMatchObject({ failures: 0, blocked: true, dueMs: Date.parse(blocked.ended_at!) });
    expect(retryPlan([run('error'), blocked, run('error')], s)).toMatchObject({ failures: 1, blocked: false });
  });

  it('counts the delay from the exact end where the record has it, not the whole second (never early)', () => {
    const at = '2026-01-01T10:00:00Z';
    const failed = run('error', { started_at: at, ended_at: at, started_ms: Date.parse(at) + 300, duration_ms: 600 });
    expect(retryPlan([failed], s)!.dueMs).toBe(Date.parse(at) + 900 + 30_000);
    // A record written before started_ms: its whole-second end is all there is.
    expect(retryPlan([run('error', { started_at: at, ended_at: at })], s)!.dueMs).toBe(Date.parse(at) + 30_000);
  });

  it('orders runs that share a second by their start in milliseconds, not by their random ids (a blocked run stays the newest)', () => {
    // A runner that fails at once: its retry and the run that blocks the item start in one second.
    const at = '2026-01-01T10:00:00Z';
    const second = run('error', { id: 'r-zzzz', started_at: at, ended_at: at, started_ms: Date.parse(at) + 120 });
    const blocking = run('error', { id: 'r-aaaa', started_at: at, ended_at: at, started_ms: Date.parse(at) + 480, blocked: true });
    const old = run('error', { started_at: '2026-01-01T09:59:59Z', ended_at: '2026-01-01T09:59:59Z' }); // written before started_ms
    const ordered = [blocking, second, old].sort(runOrder);
    expect(ordered.map((r) => r.id)).toEqual([old.id, 'r-zzzz', 'r-aaaa']);
    expect(retryPlan(ordered, s)).toMatchObject({ failures: 0, blocked: true });
  });

  it('failed runs do not count toward the no-progress limit; runs that succeed and record nothing do', () => {
    expect(noProgressStreak([run('ok'), run('error'), run('ok'), run('timeout')])).toBe(2);
    expect(noProgressStreak([run('ok', { progress: true }), run('ok')])).toBe(1);
  });
});

describe('sumRuns: tokens and cost summed over runs', () => {
  it('adds every figure, reasoning when present, and says null when no run reported any', () => {
    expect(sumRuns([run('ok'), run('error')])).toEqual({ runs: 2, tokens: null, cost_usd: null });
    const t = sumRuns([
      run('ok', { tokens: { uncached_input: 1, cache_read: 2, cache_write: 3, output: 4 }, cost_usd: 0.1 }),
      run('ok', { tokens: { uncached_input: 10, cache_read: 20, cache_write: 30, output: 40, reasoning: 5 }, cost_usd: 0.2 }),
      run('error'),
    ]);
    expect(t).toEqual({ runs: 3, tokens: { uncached_input: 11, cache_read: 22, cache_write: 33, output: 44, reasoning: 5 }, cost_usd: 0.3 });
  });
});

describe('watch settings', () => {
  it('has defaults and parses durations', () => {
    expect(watchSettings(watchConfig(undefined))).toEqual({ noProgressLimit: 3, runTimeoutMs: 30 * 60_000, retry: { limit: 3, delayMs: 30_000, maxDelayMs: 30 * 60_000 } });
    expect(watchSettings(watchConfig({ retry_limit: 0, retry_delay: '1s', retry_max_delay: '2s' })).retry).toEqual({ limit: 0, delayMs: 1000, maxDelayMs: 2000 });
    expect(DEFAULT_WATCH.retry_limit).toBe(3);
  });

  it('refuses bad values with the key and a fix', () => {
    expect(() => watchSettings(watchConfig({ retry_limit: -1 }))).toThrow(/watch\.retry_limit must be a whole number/);
    expect(() => watchSettings(watchConfig({ retry_limit: '3' }))).toThrow(/watch\.retry_limit/);
    expect(() => watchSettings(watchConfig({ retry_delay: 'soon' }))).toThrow(/watch\.retry_delay "soon" is not a duration/);
    expect(() => watchSettings(watchConfig({ retry_delay: '1h', retry_max_delay: '1m' }))).toThrow(/retry_max_delay \(1m\) is shorter/);
    expect(() => watchSettings(watchConfig({ no_progress_limit: 1.5 }))).toThrow(/no_progress_limit/);
    expect(() => watchSettings(watchConfig({ run_timeout: 'forever' }))).toThrow(/run_timeout/);
  });
});

describe('historyLine', () => {
  it('names the cause of a failed run once, and the exit of a clean one', async () => {
    const { historyLine } = await import('../../src/core/run-record.js');
    expect(historyLine(run('error', { id: 'r-a', exit_code: 1, cause: 'exit 1: fatal: no build', duration_ms: 1200, progress: true }))).toBe('run r-a (command, wait_triggered): error (exit 1: fatal: no build), 1.2s');
    expect(historyLine(run('error', { id: 'r-b', exit_code: null, cause: 'runner not found: spawn x ENOENT', progress: null }))).toBe('run r-b (command, wait_triggered): error (runner not found: spawn x ENOENT), 0.0s');
    expect(historyLine(run('ok', { id: 'r-c', progress: true }))).toBe('run r-c (command, wait_triggered): ok, exit 0, 0.0s');
  });
});
