import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseClaudeOutput, parseCodexOutput } from '../../dist/core/runner-output.js';
import { agentProject, requestText, type AgentOptions, type Preset, type Turn } from './harness.js';

/**
 * The real `claude` and `codex` CLIs (pinned, installed by install-clis.mjs) under `holon watch`,
 * against loopback stand-ins of their model APIs. The scripted model calls the CLI's own shell tool
 * (Bash / exec_command) with literal holon commands, as a real model reading the resume prompt would.
 */
const closers: Array<() => Promise<void>> = [];

async function setup(preset: Preset, opts: AgentOptions = {}) {
  const a = await agentProject(preset, opts);
  closers.push(a.close);
  return a;
}

/** A failure of the model API (the stand-in answers every request with `turn`) or a missing CLI, and the cause it must give. */
interface Outage {
  turn?: Turn;
  missing?: boolean;
  status?: 'error' | 'timeout';
  cause: RegExp;
}

/** The token figures holon must record for a run whose model requests reported these usages. */
function expected(preset: Preset, turns: Turn[]) {
  const sum = (k: keyof NonNullable<Turn['usage']>) => turns.reduce((n, t) => n + (t.usage?.[k] ?? 0), 0);
  // Claude reports no reasoning figure from a stand-in that streams no thinking blocks; the output
  // figure each API reports includes the reasoning tokens.
  return preset === 'claude'
    ? { uncached_input: sum('input'), cache_read: sum('cache_read'), cache_write: sum('cache_write'), output: sum('output'), reasoning: 0 }
    : { uncached_input: sum('input'), cache_read: sum('cache_read'), cache_write: sum('cache_write'), output: sum('output') + sum('reasoning'), reasoning: sum('reasoning') };
}

/** The tier's tests for one CLI (claude.test.ts and codex.test.ts run in parallel). */
export function agentSuite(preset: Preset): void {
  afterEach(async () => {
    while (closers.length) await closers.pop()!();
  });

  describe(`${preset}, the real CLI`, () => {
    it('records progress and a new wait from inside its run, resumes the same session on the wake, and counts tokens per run', async () => {
      const a = await setup(preset);
      const id = await a.create('Review PR #102');
      const first: Turn[] = [
        { shell: `holon progress ${id} "read the diff: two files changed"`, usage: { input: 1200, cache_read: 300, cache_write: 800, output: 40, reasoning: 12 } },
        { shell: `holon wait ${id} --for external:ci:run/42 --reason "CI on the new commit"`, usage: { input: 90, cache_read: 2100, cache_write: 60, output: 25, reasoning: 5 } },
        { text: 'Recorded progress; waiting for CI.', usage: { input: 30, cache_read: 2200, cache_write: 0, output: 12, reasoning: 0 } },
      ];
      a.api.push(...first);
      const [r1] = await a.once();
      expect(r1, a.log(r1)).toMatchObject({ runner: preset, status: 'ok', progress: true, resumed_session: null, error: null });
      expect(r1.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(r1.tokens).toEqual(expected(preset, first));
      if (preset === 'claude') expect(r1.cost_usd).toBeGreaterThan(0);
      else expect(r1.cost_usd).toBeNull();
      expect(a.api.mainRequests).toHaveLength(3);
      expect(a.api.remaining).toBe(0);
      // The prompt names the item literally: the model never had to expand a shell variable.
      expect(requestText(a.api.mainRequests[0].body)).toContain(`holon progress ${id} `);
      expect(requestText(a.api.mainRequests[0].body)).not.toContain('$HOLON_WORK_ITEM');
      // What the agent ran through its shell tool is in the record.
      const shown = await a.json(['show', id]);
      expect(JSON.stringify(shown)).toContain('read the diff: two files changed');
      const wait = shown.waits.find((w: any) => w.resource === 'ci:run/42');
      expect(wait).toMatchObject({ kind: 'external', status: 'active', reason: 'CI on the new commit' });
      expect(a.sessions()[`rev/${id}`]).toMatchObject({ runner: preset, session_id: r1.session_id, run: r1.id });

      // Nothing happened: the watcher starts nothing and the model is not asked anything.
      expect(await a.once()).toEqual([]);
      expect(a.api.requests.filter((r) => r.main)).toHaveLength(3);

      // CI reports: the wake resumes the same session, which sends the earlier conversation along.
      expect((await a.h(['notify', 'ci:run/42'])).code).toBe(0);
      const second: Turn[] = preset === 'claude'
        ? first.map((t, i) => (i === 2 ? { text: 'CI passed.', usage: t.usage } : i === 0 ? { shell: `holon progress ${id} "CI passed on the new commit"`, usage: t.usage } : { shell: `holon wait ${id} --resolve ${wait.id}`, usage: t.usage }))
        : [
            { shell: `holon progress ${id} "CI passed on the new commit"`, usage: { input: 400, cache_read: 5000, cache_write: 100, output: 30, reasoning: 9 } },
            { shell: `holon wait ${id} --resolve ${wait.id}`, usage: { input: 50, cache_read: 5400, cache_write: 0, output: 20, reasoning: 3 } },
            { text: 'CI passed.', usage: { input: 20, cache_read: 5500, cache_write: 0, output: 8, reasoning: 0 } },
          ];
      a.api.push(...second);
      const [r2] = await a.once();
      expect(r2, a.log(r2)).toMatchObject({ status: 'ok', progress: true, session_id: r1.session_id, resumed_session: r1.session_id });
      expect(r2.reasons).toContain('wait_triggered');
      // This run's figures, not the session's running totals.
      expect(r2.tokens).toEqual(expected(preset, second));
      if (preset === 'claude') expect(r2.cost_usd).toBeCloseTo(r1.cost_usd, 10);
      const resumed = requestText(a.api.mainRequests[3].body);
      expect(resumed).toContain('read the diff: two files changed');
      expect(resumed).toContain('Recorded progress; waiting for CI.');
      expect(a.api.mainRequests).toHaveLength(6);
      const after = await a.json(['show', id]);
      expect(JSON.stringify(after)).toContain('CI passed on the new commit');
      expect(after.waits.find((w: any) => w.id === wait.id).status).not.toBe('triggered');
    });

    // Each failure mode through its whole course with the real CLI: the run fails with a one-line cause
    // outside the agent, keeps its wake and is retried on the watcher's clock (HOLON_NOW), the item is
    // blocked after the limit with the cause and `holon reopen`, and once the cause is gone a reopen
    // runs it again for the same wake, which the agent handles: no stranded item after an outage.
    it.each<[string, Outage]>([
      // What each CLI itself says (codex calls a 500 "high demand").
      ['HTTP 500', { turn: { fail: 500 }, cause: preset === 'claude' ? /^API Error: 500 stand-in HTTP 500/ : /high demand/ }],
      ['HTTP 429', { turn: { fail: 429 }, cause: preset === 'claude' ? /^API Error: Request rejected \(429\)/ : /429 Too Many Requests/ }],
      ['a malformed stream', { turn: { malformed: true }, cause: preset === 'claude' ? /^API error: the model's answer came back empty/ : /^stream disconnected before completion/ }],
      // A model API that never answers ends at the run timeout, its process group killed (10 s: the CLI must
      // start and send its first request before it, on a loaded machine too).
      ['a hang', { turn: { hang: true }, status: 'timeout', cause: /^no result within the run timeout \(10s\); its process group was killed$/ }],
      // A CLI that is not installed: the cause names the missing executable, and no model request is made.
      ['a missing binary', { missing: true, cause: new RegExp(`^runner not found: spawn /nonexistent/${preset} ENOENT`) }],
    ])('%s: a failed run outside the agent, retried for its wake, then the item blocked; reopen runs it once the cause is gone', async (_what, o) => {
      const a = await setup(preset, {
        watch: { retry_limit: 1, retry_delay: '10m', retry_max_delay: '1h' },
        ...(o.missing ? { runner: `{preset: ${preset}, command: /nonexistent/${preset}}` } : {}),
        ...(o.turn?.hang ? { runTimeout: '10s' } : {}),
      });
      const status = o.status ?? 'error';
      const id = await a.create('Review PR #102');
      const wait = (await a.json(['wait', id, '--for', 'external:ci:run/42', '--reason', 'CI on the new commit'])).wait.id;
      expect((await a.h(['notify', 'ci:run/42'])).code).toBe(0);
      if (o.turn) a.api.outage(o.turn);

      // 1. The run fails; the cause is on the record, in the watch log and in `holon runs`.
      const p1 = await a.pass();
      expect(p1.runs).toHaveLength(1);
      const r1 = p1.runs[0];
      expect(r1, a.log(r1)).toMatchObject({ status, progress: false, outside: true, blocked: false });
      expect(r1.cause).toMatch(o.cause);
      expect(r1.cause).not.toContain('\n');
      expect(r1.error).toBe(r1.cause);
      expect(r1.reasons).toContain('wait_triggered');
      expect(r1.wakes).toContainEqual(expect.objectContaining({ reason: 'wait_triggered', wait }));
      if (o.missing) expect(a.api.requests).toHaveLength(0);
      else expect(a.api.mainRequests.length).toBeGreaterThan(0);
      expect(p1.log).toContain(`run ${r1.id} ended: ${status}`);
      expect(p1.log).toContain(` - ${r1.cause} [outside the agent]; retry 1 of 1 at `);
      const listed = await a.h(['runs']);
      expect(listed.stdout).toContain(`[outside] ${r1.cause.slice(0, 60)}`);
      const shown = await a.h(['runs', 'show', r1.id]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(`cause: ${r1.cause} (outside the agent: a retry may succeed)`);
      expect(shown.stdout).toContain(`wake: wait_triggered wait ${wait}`);
      const logText = a.log(r1).trimEnd();
      if (logText) expect(shown.stdout).toContain(logText.slice(-200));
      const shownJson = await a.json(['runs', 'show', r1.id]);
      expect(shownJson.run).toMatchObject({ id: r1.id, cause: r1.cause, outside: true });
      expect(shownJson.log.tail ?? '').toEqual(logText ? expect.stringContaining(logText.slice(-200)) : '');
      // The failed run did not consume the wake: the item is still open, its wait still triggered.
      expect(await a.json(['show', id])).toMatchObject({ status: 'open', waits: [expect.objectContaining({ id: wait, status: 'triggered' })] });

      // 2. CI reports again while the retry is pending: the event joins the pending wake, never a nudge.
      const again = await a.h(['notify', 'ci:run/42']);
      expect(again.stderr).toContain(`joined the pending wake of wait ${wait} of ${id}`);
      const joined = again.stdout.trim();

      // 3. Before the retry is due, nothing runs.
      const held = await a.pass();
      expect(held.runs).toEqual([]);
      expect(held.log).toContain(`not running rev on ${id} yet: retry 1 of 1 after ${r1.id} failed is due at`);

      // 4. Due: the retry runs for the same wake (and the joined event), fails, and blocks the item.
      const asked = a.api.mainRequests.length;
      const p2 = await a.pass(Date.parse(r1.ended_at) + 10 * 60_000 + 1000);
      expect(p2.runs).toHaveLength(1);
      const r2 = p2.runs[0];
      expect(r2, a.log(r2)).toMatchObject({ status, outside: true, blocked: true });
      expect(r2.cause).toMatch(o.cause);
      expect([...r2.reasons].sort()).toEqual([...r1.reasons].sort());
      expect(r2.wakes).toEqual(expect.arrayContaining([...r1.wakes, { reason: 'wait_triggered', wait, event: joined }]));
      if (!o.missing) {
        expect(a.api.mainRequests.length).toBeGreaterThan(asked);
        expect(requestText(a.api.mainRequests[asked].body)).toContain(`This is retry 1 of 1: run ${r1.id} failed (`);
      }
      expect(p2.log).toContain(` - ${r2.cause} [outside the agent]; ${id} blocked after 2 failed runs (fix the cause, then holon reopen ${id})`);
      const blocked = await a.json(['show', id]);
      expect(blocked.status).toBe('blocked');
      expect(blocked.blocker.reason).toContain(`runs failed: 2 runs in a row failed (last ${r2.id}: ${r2.cause}; outside the agent)`);
      expect(blocked.blocker.recovery).toContain(`holon reopen ${id}`);
      expect((await a.h(['runs'])).stdout).toMatch(new RegExp(`${r2.id} .*${status} \\(blocked item\\)`));
      // Blocked: not run again, however late; an event meanwhile still joins the pending wake.
      const late = a.api.requests.length;
      const meanwhile = await a.h(['notify', 'ci:run/42']);
      expect(meanwhile.stderr).toContain(`joined the pending wake of wait ${wait} of ${id}`);
      expect((await a.pass(Date.parse(r2.ended_at) + 24 * 3600_000)).runs).toEqual([]);
      expect(a.api.requests).toHaveLength(late);

      // 5. The cause is gone (the API answers again, the CLI is installed); a reopen runs the same wake.
      a.api.outage(null);
      if (o.missing) a.runner(`{preset: ${preset}}`);
      // The short timeout was only there to end the hang soon; a healthy run gets the usual time.
      if (o.turn?.hang) a.runTimeout('2m');
      a.api.push({ shell: `holon progress ${id} "the API is back; reviewed the diff"` }, { text: 'Done.' });
      expect((await a.h(['reopen', id])).code).toBe(0);
      const before = a.api.mainRequests.length;
      const [r3] = (await a.pass()).runs;
      expect(r3, a.log(r3)).toMatchObject({ status: 'ok', progress: true, cause: null, outside: false, blocked: false });
      const last = meanwhile.stdout.trim();
      expect(r3.wakes).toEqual(expect.arrayContaining([{ reason: 'wait_triggered', wait, event: joined }, { reason: 'wait_triggered', wait, event: last }]));
      const prompt = requestText(a.api.mainRequests[before].body);
      expect(prompt).toContain(`Also for wait ${wait}: event ${joined}`);
      expect(prompt).toContain(`Also for wait ${wait}: event ${last}`);
      const after = await a.json(['show', id]);
      expect(after.status).toBe('open');
      expect(JSON.stringify(after)).toContain('the API is back; reviewed the diff');
      // The successful run consumed the wake: nothing more, however late.
      const done = a.api.requests.length;
      expect((await a.pass(Date.parse(r3.ended_at) + 24 * 3600_000)).runs).toEqual([]);
      expect(a.api.requests).toHaveLength(done);
    });

    it('a model API that cannot be reached: the run ends at its timeout, and the cause says what the CLI was stuck on', async () => {
      // Claude Code retries a refused connection itself (10 times by default: on again here); codex
      // waits for the network. Neither ends by itself within the run timeout.
      const a = await setup(preset, { runTimeout: '12s', env: preset === 'claude' ? { CLAUDE_CODE_MAX_RETRIES: '10' } : {} });
      await a.api.close();
      await a.create('Review PR #102');
      const { runs: [r], log } = await a.pass();
      expect(r, a.log(r)).toMatchObject({ status: 'timeout', outside: true, progress: false });
      expect(r.cause).toMatch(/^no result within the run timeout \(12s\); its process group was killed; the runner last said: /);
      expect(r.cause).toMatch(preset === 'claude' ? /last said: API error: Claude Code was still retrying the model API \(attempt \d+ of 10: no answer/ : /last said: Reconnecting\.\.\. waiting for network/);
      expect(log).toContain(` - ${r.cause} [outside the agent]; retry 1 of 3 at `);
    });

    it('a retry after an API error resumes the session and records only its own tokens', async () => {
      const a = await setup(preset, { watch: { retry_limit: 1, retry_delay: '10m', retry_max_delay: '1h' } });
      const id = await a.create('Review PR #102');
      const turns = (note: string): Turn[] => [
        { shell: `holon progress ${id} "${note}"`, usage: { input: 700, cache_read: 900, cache_write: 300, output: 30, reasoning: 7 } },
        { text: 'Recorded.', usage: { input: 40, cache_read: 1800, cache_write: 0, output: 10, reasoning: 0 } },
      ];
      a.api.push(...turns('read the diff'));
      const [r0] = await a.once();
      expect(r0, a.log(r0)).toMatchObject({ status: 'ok', progress: true });
      expect(r0.tokens).toEqual(expected(preset, turns('read the diff')));
      const wait = (await a.json(['wait', id, '--for', 'external:ci:run/42', '--reason', 'CI'])).wait.id;

      expect((await a.h(['notify', 'ci:run/42'])).code).toBe(0);
      a.api.outage({ fail: 500 });
      const [r1] = await a.once();
      expect(r1, a.log(r1)).toMatchObject({ status: 'error', outside: true, resumed_session: r0.session_id });

      a.api.outage(null);
      a.api.push(...turns('CI passed'));
      const { runs: [r2] } = await a.pass(Date.parse(r1.ended_at) + 10 * 60_000 + 1000);
      expect(r2, a.log(r2)).toMatchObject({ status: 'ok', progress: true, session_id: r0.session_id, resumed_session: r0.session_id });
      expect(r2.wakes).toContainEqual(expect.objectContaining({ reason: 'wait_triggered', wait }));
      // This run's figures: neither the first run's nor the failed one's.
      expect(r2.tokens).toEqual(expected(preset, turns('CI passed')));
      if (preset === 'claude') expect(r2.cost_usd).toBeCloseTo(r0.cost_usd, 10);
      // The model saw the conversation before the outage.
      expect(requestText(a.api.mainRequests.at(-2)!.body)).toContain('read the diff');
      // The item's sum is the two runs that got answers: the failed one used nothing.
      const both = expected(preset, [...turns('read the diff'), ...turns('CI passed')]);
      expect(await a.json(['show', id])).toMatchObject({ runs: 3, tokens: both });
    });

    it('a running watcher retries after retry_delay by itself, blocks the item, and runs it again when someone reopens it', async () => {
      const a = await setup(preset, { watch: { retry_limit: 1, retry_delay: '1s', retry_max_delay: '1s' } });
      const id = await a.create('Review PR #102');
      a.api.outage({ fail: 500 });
      const w = a.watch();
      // The log line comes once the run is recorded.
      await w.waitFor(new RegExp(`${id} blocked after 2 failed runs \\(fix the cause, then holon reopen ${id}\\)`), 60_000);
      expect(a.runs().map((r: any) => [r.status, r.outside, r.blocked, r.reasons])).toEqual([['error', true, false, ['new_work']], ['error', true, true, ['new_work']]]);
      expect((await a.json(['show', id])).status).toBe('blocked');
      const asked = a.api.mainRequests.length;
      a.api.outage(null);
      a.api.push({ shell: `holon progress ${id} "the API is back"` }, { text: 'Done.' });
      expect((await a.h(['reopen', id])).code).toBe(0);
      const [, ran] = await w.waitFor(/run (r-\S+) ended: ok/, 60_000);
      const ok = a.runs().find((r: any) => r.id === ran);
      expect(ok).toMatchObject({ status: 'ok', progress: true, reasons: ['new_work'] });
      expect(a.api.mainRequests.length).toBeGreaterThan(asked);
      // Nothing more: the successful run consumed the wake.
      expect(a.runs()).toHaveLength(3);
    });

    it('an idle home makes no model request', async () => {
      // (An item that ran and waits makes none either: see the first test.)
      const a = await setup(preset);
      expect(await a.once()).toEqual([]);
      expect(a.api.requests).toHaveLength(0);
    });

    it.each(preset === 'claude' ? ['{preset: claude, args: ["--allowedTools", "Edit Write"]}', '{preset: claude, args: ["--permission-mode", "acceptEdits"]}'] : ['{preset: codex}', '{preset: codex, args: ["--model", "gpt-stand-in-2"]}', '{preset: codex, args: ["--sandbox", "danger-full-access"]}'])(
      'the documented setup %s lets the agent edit the checkout and still run holon',
      async (runner) => {
        const a = await setup(preset, { runner });
        const id = await a.create('Write the review notes');
        const notes = join(a.dir, 'notes.md');
        a.api.push(
          preset === 'claude' ? { tool: { name: 'Write', input: { file_path: notes, content: 'LGTM\n' } } } : { shell: `printf 'LGTM\\n' > notes.md` },
          { shell: `holon progress ${id} "wrote notes.md"` },
          { text: 'Done.' },
        );
        const [r] = await a.once();
        expect(r, a.log(r)).toMatchObject({ status: 'ok', progress: true });
        expect(readFileSync(notes, 'utf8')).toBe('LGTM\n');
        expect(JSON.stringify(await a.json(['show', id]))).toContain('wrote notes.md');
        if (runner.includes('--model')) expect(a.api.mainRequests.every((q) => q.body.model === 'gpt-stand-in-2')).toBe(true);
        // Nothing was denied along the way.
        expect(a.log(r)).not.toMatch(/"permission_denials":\[\{/);
      },
    );

    it(preset === 'claude' ? 'a command outside Bash(holon *) is denied, and the run reports it' : 'in a login shell codex loses holon from PATH, and the run reports it', async () => {
      // codex: a later -c wins, so this turns the login shell back on, as codex has it by default.
      const a = await setup(preset, preset === 'codex' ? { runner: '{preset: codex, args: ["-c", "allow_login_shell=true"]}' } : {});
      const id = await a.create('Review PR #102');
      a.api.push({ shell: preset === 'claude' ? 'touch pwned.txt' : `holon progress ${id} "read the diff"` }, { text: 'Done.' });
      const { runs: [r], log } = await a.pass();
      expect(r.progress).toBe(false);
      const report = (preset === 'claude' ? parseClaudeOutput : parseCodexOutput)(a.log(r));
      if (preset === 'claude') {
        expect(existsSync(join(a.dir, 'pwned.txt'))).toBe(false);
        expect(report.problems).toEqual(['denied: Bash(touch pwned.txt) (allow it in runner args, e.g. --allowedTools)']);
      } else {
        expect(report.problems).toHaveLength(1);
        expect(report.problems[0]).toMatch(/holon: command not found \(in: \/bin\/bash -lc 'holon progress/);
      }
      // The record keeps the problems; a run they left without progress failed, by the agent's own
      // setup (no API was at fault), and says so in the watch log, `holon runs` and `holon runs show`.
      expect(r).toMatchObject({ status: 'error', outside: false, problems: report.problems, cause: report.problems[0] });
      expect(log).toContain(`run ${r.id} ended: error (exit 0) - ${r.cause} [the agent]; retry 1 of 3 at `);
      expect((await a.h(['runs'])).stdout).toContain(r.cause.slice(0, 80));
      expect((await a.json(['runs'])).runs).toEqual([expect.objectContaining({ id: r.id, problems: report.problems })]);
      expect((await a.h(['runs', 'show', r.id])).stdout).toContain(`problem: ${report.problems[0]}\n`);
    });

    it('a prompt longer than one argument may be (128 KiB) reaches the model whole', async () => {
      const a = await setup(preset);
      const id = await a.create('Review PR #102');
      const file = a.workFile(id);
      const long = `${'Read every line of the diff. '.repeat(8000)}END-OF-OBJECTIVE`;
      writeFileSync(file, readFileSync(file, 'utf8').replace('## Objective\n\nReview PR #102\n', `## Objective\n\nReview PR #102\n\n${long}\n`));
      a.api.push({ shell: `holon progress ${id} "read it all"` }, { text: 'Done.' });
      const [r] = await a.once();
      expect(r, a.log(r)).toMatchObject({ status: 'ok', progress: true });
      expect(requestText(a.api.mainRequests[0].body)).toContain('END-OF-OBJECTIVE');
    });

    it("the agent's tool shell sees holon's run environment", async () => {
      const a = await setup(preset, preset === 'claude' ? { runner: '{preset: claude, args: ["--allowedTools", "Bash(env)"]}' } : {});
      const id = await a.create('Review PR #102');
      a.api.push({ shell: 'env' }, { text: 'Done.' });
      const [r] = await a.once();
      const report = (preset === 'claude' ? parseClaudeOutput : parseCodexOutput)(a.log(r));
      expect(report.problems).toEqual([]);
      const seen = a.api.mainRequests[1].body;
      const text = requestText(seen);
      for (const v of [`HOLON_WORK_ITEM=${id}`, 'HOLON_AGENT=rev', 'HOLON_ACTOR=agent:rev', `HOLON_RUN_ID=${r.id}`, 'HOLON_WAKE=new_work', `.holon/local/bin`]) expect(text).toContain(v);
    });
  });
}
