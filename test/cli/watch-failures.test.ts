import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { runRecords, script, setRunner, startWatch, until } from '../helpers/watch.js';

type Project = Awaited<ReturnType<typeof project>>;

/** Sets holon.yaml watch settings (the keys `holon init` writes). */
function watchYaml(home: string, settings: Record<string, string | number>): void {
  const file = join(home, 'holon.yaml');
  let text = readFileSync(file, 'utf8');
  for (const [k, v] of Object.entries(settings)) {
    const re = new RegExp(`^  ${k}: .*$`, 'm');
    if (!re.test(text)) throw new Error(`holon.yaml has no watch.${k}`);
    text = text.replace(re, `  ${k}: ${JSON.stringify(v)}`);
  }
  writeFileSync(file, text);
}

/** One `holon watch --once` pass (optionally on the clock `at`), its runs and its log. */
async function once(p: Project, at?: number): Promise<{ runs: any[]; log: string; code: number }> {
  const r = await p.h(['watch', '--once', '--json'], at === undefined ? {} : { HOLON_NOW: new Date(at).toISOString() });
  return { runs: r.stdout ? JSON.parse(r.stdout).runs : [], log: r.stderr, code: r.code };
}

const lastEnd = (p: Project) => Date.parse(runRecords(p.home).at(-1).ended_at);

/** A runner that fails with a message on stderr until the file ok-now exists, then records progress. */
function flakyRunner(p: Project): void {
  script(join(p.dir, 'agent.sh'), `#!/bin/sh
echo "$HOLON_WAKE" >> "$PWD/wakes.log"
cat > "$PWD/last-prompt.txt"
[ -f "$PWD/ok-now" ] && exec holon progress "$HOLON_WORK_ITEM" "handled"
echo "fatal: the tests do not build" >&2
exit 1
`);
  setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
}

describe('watch: failed runs keep their wake, retry, then block', () => {
  it('a failed run is retried for the same wait after growing delays (across restarts), then blocked; reopen runs it again', async () => {
    const p = await project('rev');
    flakyRunner(p);
    watchYaml(p.home, { retry_limit: 2, retry_delay: '10s', retry_max_delay: '1m' });
    const id = await p.create('CI');
    const wait = (await p.json(['wait', id, '--for', 'external:ci:run/1', '--reason', 'CI'])).wait.id;
    expect((await p.h(['notify', 'external:ci:run/1'])).code).toBe(0);

    const first = await once(p);
    expect(first.runs).toHaveLength(1);
    expect(first.runs[0]).toMatchObject({ status: 'error', cause: 'exit 1: fatal: the tests do not build', outside: false, reasons: ['wait_triggered'] });
    expect(first.log).toMatch(/run r-\S+ ended: error \(exit 1\) - exit 1: fatal: the tests do not build \[the agent\]; retry 1 of 2 at /);
    // Not due yet: nothing runs (the failed run did not consume the wait; it waits for its retry).
    const early = await once(p, lastEnd(p) + 8_000);
    expect(early.runs).toEqual([]);
    expect(early.log).toContain(`not running rev on ${id} yet: retry 1 of 2 after ${first.runs[0].id} failed is due at ${new Date(lastEnd(p) + 10_000).toISOString().replace('.000Z', 'Z')}`);
    const second = await once(p, lastEnd(p) + 11_000);
    expect(second.runs.map((r) => [r.status, r.reasons, r.wakes[0].wait])).toEqual([['error', ['wait_triggered'], wait]]);
    expect(readFileSync(join(p.dir, 'last-prompt.txt'), 'utf8')).toContain(`This is retry 1 of 2: run ${first.runs[0].id} failed (exit 1: fatal: the tests do not build).`);
    // The delay doubles: 20s after the second failure.
    expect((await once(p, lastEnd(p) + 15_000)).runs).toEqual([]);
    const third = await once(p, lastEnd(p) + 21_000);
    expect(third.runs.map((r) => [r.status, r.blocked])).toEqual([['error', true]]);
    expect(third.log).toMatch(new RegExp(`${id} blocked after 3 failed runs \\(fix the cause, then holon reopen ${id}\\)`));
    const item = await p.json(['show', id]);
    expect(item.status).toBe('blocked');
    expect(item.blocker.reason).toMatch(new RegExp(`^runs failed: 3 runs in a row failed \\(last ${third.runs[0].id}: exit 1: fatal: the tests do not build\\)`));
    expect(item.blocker.recovery).toContain(`holon reopen ${id}`);
    expect(item.blocker.recovery).toContain(`holon runs show ${third.runs[0].id}`);
    // Blocked: not run again, however late.
    expect((await once(p, lastEnd(p) + 3_600_000)).runs).toEqual([]);

    writeFileSync(join(p.dir, 'ok-now'), '');
    expect((await p.h(['reopen', id])).code).toBe(0);
    const fourth = await once(p);
    expect(fourth.runs.map((r) => [r.status, r.reasons, r.wakes[0].wait])).toEqual([['ok', ['wait_triggered'], wait]]);
    // A successful run consumed the wake: nothing more, however late.
    expect((await once(p, lastEnd(p) + 3_600_000)).runs).toEqual([]);
    expect(readFileSync(join(p.dir, 'wakes.log'), 'utf8').trim().split('\n')).toEqual(Array(4).fill('wait_triggered'));
  }, 120_000);

  it('an event for a triggered wait no successful run has consumed joins that wake; after a success it only nudges', async () => {
    const p = await project('rev');
    flakyRunner(p);
    const id = await p.create('CI');
    const wait = (await p.json(['wait', id, '--for', 'external:ci:run/7', '--reason', 'CI'])).wait.id;
    const e1 = (await p.json(['notify', 'external:ci:run/7'])).id;
    expect((await once(p)).runs.map((r) => r.status)).toEqual(['error']);
    const second = await p.json(['notify', 'external:ci:run/7', '--mode', 'message', '--payload', 'run 7 rebuilt: green']);
    expect(second.disposition).toEqual({ triggered: [], joined: [{ work_item: id, wait }], nudged: false });
    writeFileSync(join(p.dir, 'ok-now'), '');
    const retry = await once(p, lastEnd(p) + 31_000);
    expect(retry.runs.map((r) => r.status)).toEqual(['ok']);
    expect(retry.runs[0].wakes.map((w: any) => [w.wait, w.event])).toEqual(expect.arrayContaining([[wait, e1], [wait, second.id]]));
    expect(retry.runs[0].wakes).toHaveLength(2);
    // The prompt names the joined event and fences its payload as data.
    const prompt = readFileSync(join(p.dir, 'last-prompt.txt'), 'utf8');
    expect(prompt).toContain(`Also for wait ${wait}: event ${second.id} from source "external" (message,`);
    expect(prompt).toContain('```untrusted\nrun 7 rebuilt: green\n```');
    const third = await p.json(['notify', 'external:ci:run/7']);
    expect(third.disposition).toEqual({ triggered: [], nudged: true });
    expect((await once(p, lastEnd(p) + 3_600_000)).runs).toEqual([]);
  });

  it('an event that arrives while the run for its triggered wait is in flight joins a new wake, run after it', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), `#!/bin/sh
echo "start $HOLON_WAKE" >> "$PWD/runs.log"
[ -f "$PWD/first-done" ] || { while [ ! -f "$PWD/release" ]; do sleep 0.05; done; touch "$PWD/first-done"; }
holon progress "$HOLON_WORK_ITEM" "looked at CI"
`);
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('CI');
    const wait = (await p.json(['wait', id, '--for', 'external:ci:run/9', '--reason', 'CI'])).wait.id;
    const w = startWatch(p.dir);
    try {
      await w.waitFor(/watching /);
      const e1 = (await p.json(['notify', 'external:ci:run/9'])).id;
      await until(() => runRecords(p.home).some((r) => r.status === 'running' && r.wakes.some((x: any) => x.event === e1)), 30_000, 'the run for the first event');
      const e2 = await p.json(['notify', 'external:ci:run/9']);
      // The first run holds until now, so the second event always meets it in flight.
      writeFileSync(join(p.dir, 'release'), '');
      expect(e2.disposition).toEqual({ triggered: [], joined: [{ work_item: id, wait }], nudged: false });
      await until(() => runRecords(p.home).some((r) => r.status === 'ok' && r.wakes.some((x: any) => x.event === e2.id)), 30_000, 'a run for the second event');
    } finally {
      await w.stop();
    }
    expect(runRecords(p.home).map((r) => [r.status, r.reasons])).toEqual([['ok', ['wait_triggered']], ['ok', ['wait_triggered']]]);
  });

  it('a missing runner (spawn ENOENT) is an outside cause, shown in the watch log, holon runs and --json', async () => {
    const p = await project('rev');
    setRunner(p.home, 'rev', '{preset: claude, command: ./no-such-claude}');
    const id = await p.create('write the docs');
    const { runs, log } = await once(p);
    expect(runs[0]).toMatchObject({ work_item: id, status: 'error', outside: true, cause: expect.stringMatching(/^runner not found: spawn \.\/no-such-claude ENOENT/) });
    expect(log).toMatch(/ended: error - runner not found: spawn \.\/no-such-claude ENOENT .*\[outside the agent\]; retry 1 of 3 at /);
    const table = await p.h(['runs']);
    expect(table.stdout).toMatch(/CAUSE/);
    expect(table.stdout).toMatch(/\[outside\] runner not found: spawn \.\/no-such-claude ENOENT/);
    const listed = await p.json(['runs']);
    expect(listed.runs[0]).toMatchObject({ cause: runs[0].cause, outside: true, problems: [] });
    // The retry keeps the wake (new work), due 30s after the failure by default.
    expect((await once(p, lastEnd(p) + 29_000)).runs).toEqual([]);
    expect((await once(p, lastEnd(p) + 31_000)).runs.map((r) => [r.reasons, r.outside])).toEqual([[['new_work'], true]]);
  });

  it('a command runner the shell cannot find (exit 127) is an outside cause', async () => {
    const p = await project('rev');
    setRunner(p.home, 'rev', '{preset: command, command: ./missing-agent.sh}');
    await p.create('anything');
    const { runs } = await once(p);
    expect(runs[0]).toMatchObject({ status: 'error', exit_code: 127, outside: true, cause: expect.stringMatching(/^runner command not found \(exit 127\): .*missing-agent\.sh.*not found/) });
  });

  it('a run killed by a signal is retried by a watcher started later, from the records alone, with no new event', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), `#!/bin/sh
echo "$HOLON_WAKE" >> "$PWD/wakes.log"
[ -f "$PWD/killed-once" ] && exec holon progress "$HOLON_WORK_ITEM" "done now"
touch "$PWD/killed-once"
kill -9 $$
`);
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    watchYaml(p.home, { retry_delay: '1s' });
    const id = await p.create('fragile');
    const first = await once(p);
    // The shell that runs the command reports the kill as exit 128+9.
    expect(first.runs[0]).toMatchObject({ status: 'error', exit_code: 137, outside: true, cause: 'killed by SIGKILL (exit 137)' });
    const w = startWatch(p.dir);
    try {
      await until(() => runRecords(p.home).some((r) => r.status === 'ok'), 30_000, 'the retry');
    } finally {
      await w.stop();
    }
    const runs = runRecords(p.home);
    expect(runs.map((r) => [r.status, r.reasons])).toEqual([['error', ['new_work']], ['ok', ['new_work']]]);
    expect((await p.json(['show', id])).status).toBe('open');
  });

  it('a run that hangs past run_timeout is retried after retry_delay, then the item is blocked with the cause', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\necho "$HOLON_WAKE" >> "$PWD/wakes.log"\nsleep 30\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const agentsMd = join(p.home, 'agents/rev/AGENTS.md');
    writeFileSync(agentsMd, readFileSync(agentsMd, 'utf8').replace('run_timeout: "30m"', 'run_timeout: "1s"'));
    watchYaml(p.home, { retry_limit: 1, retry_delay: '1s' });
    const id = await p.create('slow');
    const w = startWatch(p.dir);
    try {
      await w.waitFor(new RegExp(`${id} blocked after 2 failed runs`), 40_000);
    } finally {
      await w.stop();
    }
    expect(w.log()).toMatch(/ended: timeout - no result within the run timeout \(1s\); its process group was killed \[outside the agent\]; retry 1 of 1 at /);
    expect(runRecords(p.home).map((r) => [r.status, r.blocked])).toEqual([['timeout', false], ['timeout', true]]);
    const item = await p.json(['show', id]);
    expect(item.blocker.reason).toMatch(/^runs failed: 2 runs in a row failed \(last r-\S+: no result within the run timeout \(1s\).*; outside the agent\)$/);
  });

  it('bad retry settings are refused before the watcher starts, naming the key', async () => {
    const p = await project('rev');
    watchYaml(p.home, { retry_delay: 'soon' });
    const r = await p.h(['watch', '--once']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/holon\.yaml: watch\.retry_delay "soon" is not a duration/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // holon check names the same problem, on the line of the key.
    const check = JSON.parse((await p.h(['check', '--json'])).stdout);
    const line = readFileSync(join(p.home, 'holon.yaml'), 'utf8').split('\n').findIndex((l) => l.includes('retry_delay:')) + 1;
    expect(check.problems).toEqual([expect.objectContaining({ line, message: expect.stringMatching(/^watch\.retry_delay "soon" is not a duration/) })]);
    watchYaml(p.home, { retry_delay: '30s' });
    expect((await p.h(['watch', '--once'])).code).toBe(0);
  });
});

describe('holon runs show, and tokens summed', () => {
  it('prints a run record and the tail of its log by unique prefix; an unknown id exits 4 with suggestions', async () => {
    const p = await project('rev');
    flakyRunner(p);
    await p.create('CI');
    const [run] = (await once(p)).runs;
    const shown = await p.h(['runs', 'show', run.id.slice(0, 5)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`${run.id}  rev on ${run.work_item} (command, new_work)`);
    expect(shown.stdout).toMatch(/status error · exit 1/);
    expect(shown.stdout).toContain("cause: exit 1: fatal: the tests do not build (the agent's own)");
    expect(shown.stdout).toMatch(/log: \.holon\/local\/runs\/r-\S+\.log \(\d+ bytes\)\nfatal: the tests do not build\n$/);
    const json = await p.json(['runs', 'show', run.id]);
    expect(json.run).toMatchObject({ id: run.id, status: 'error', cause: 'exit 1: fatal: the tests do not build' });
    expect(json.log).toMatchObject({ truncated: false, tail: 'fatal: the tests do not build\n' });
    const wrong = `${run.id.slice(0, -1)}${run.id.endsWith('z') ? 'y' : 'z'}`;
    const missing = await p.h(['runs', 'show', wrong]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain(`no run "${wrong}"`);
    expect(missing.stderr).toContain(`did you mean ${run.id}?`);
  });

  it('sums tokens and cost per item in holon show and per agent in holon runs', async () => {
    const p = await project('rev');
    const fixture = join(import.meta.dirname, '../fixtures/runners/claude-success.json');
    script(join(p.dir, 'fake-claude'), `#!/usr/bin/env node
const fs = require('node:fs');
require('node:child_process').execFileSync('holon', ['progress', process.env.HOLON_WORK_ITEM, 'step'], { stdio: 'ignore' });
process.stdout.write(fs.readFileSync(${JSON.stringify(fixture)}, 'utf8'));
`);
    setRunner(p.home, 'rev', '{preset: claude, command: ./fake-claude}');
    const id = await p.create('docs');
    expect((await once(p)).runs.map((r) => r.status)).toEqual(['ok']);
    expect((await p.h(['tell', '--work', id, 'once more'])).code).toBe(0);
    expect((await once(p)).runs.map((r) => r.status)).toEqual(['ok']);
    const tokens = { uncached_input: 84, cache_read: 102580, cache_write: 12250, output: 2374 };
    // Claude's total_cost_usd is the session's: the fake prints the same total twice, so the resumed run adds no cost.
    const item = await p.json(['show', id]);
    expect(item).toMatchObject({ runs: 2, tokens, cost_usd: 0.087322 });
    expect((await p.h(['show', id])).stdout).toContain('runs: 2, tokens 84+102580r+12250w in, 2374 out, $0.0873');
    expect((await p.json(['runs'])).totals).toEqual([{ agent: 'rev', runs: 2, tokens: { ...tokens, reasoning: 0 }, cost_usd: 0.087322 }]);
    expect((await p.h(['runs'])).stdout).toContain('total rev: 2 runs, tokens 84+102580r+12250w in, 2374 out, $0.0873');
    const other = await p.create('untouched');
    expect(await p.json(['show', other])).toMatchObject({ runs: 0, tokens: null, cost_usd: null });
  });
});
