import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { playReviewer } from '../../src/cli/demo-reviewer.js';
import { DemoShell } from '../../src/cli/demo-script.js';
import { cleanEnv, project, tempDir } from '../helpers/cli.js';
import { runRecords, script, setRunner, sleep, startWatch, until } from '../helpers/watch.js';

/** A runner that logs start/end around a short sleep, flags overlap, and re-arms the item's wait. */
function armingRunner(dir: string, resource: string, extra = '') {
  const log = join(dir, 'runs.log');
  script(join(dir, 'agent.sh'), `#!/bin/sh
if ! mkdir "$PWD/inflight" 2>/dev/null; then echo OVERLAP >> "${log}"; fi
echo "start $HOLON_WORK_ITEM $HOLON_WAKE" >> "${log}"
sleep 0.3
${extra}
holon wait "$HOLON_WORK_ITEM" --for ${resource} --reason "next signal" > /dev/null
echo "end $HOLON_WORK_ITEM" >> "${log}"
rmdir "$PWD/inflight"
`);
  return log;
}

describe('watch with waits, events and timers', () => {
  it('an idle home whose open items all wait starts no run over a period with no events', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\necho ran >> "$PWD/ran.log"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    for (let i = 0; i < 3; i++) {
      const id = await p.create(`waiting ${i}`);
      expect((await p.h(['wait', id, '--for', `external:ci:run/${i}`, '--reason', 'CI'])).code).toBe(0);
    }
    const deferred = await p.create('later');
    expect((await p.h(['defer', deferred, '--until', '2030-01-01T00:00:00Z', '--reason', 'not before 2030'])).code).toBe(0);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    await sleep(2500);
    expect(await w.stop()).toBe(0);
    expect(runRecords(p.home)).toEqual([]);
    expect(existsSync(join(p.dir, 'ran.log'))).toBe(false);
    expect(w.log()).not.toMatch(/run r-/);
  });

  it('a notify that triggers a wait resumes the item; unrelated events and waits of other items do not', async () => {
    const p = await project('rev');
    const log = armingRunner(p.dir, 'external:github:acme/app#101');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const a = await p.create('PR 101');
    const b = await p.create('PR 102');
    await p.h(['wait', a, '--for', 'external:github:acme/app#101', '--reason', 'revision']);
    await p.h(['wait', b, '--for', 'external:ci:run/9', '--reason', 'tests']);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    expect((await p.h(['notify', 'external:nothing:here'])).code).toBe(0);
    expect((await p.h(['notify', 'external:github:acme/app#101'])).code).toBe(0);
    await until(() => runRecords(p.home).some((r) => r.status === 'ok'), 60_000, 'run');
    await sleep(800);
    expect(await w.stop()).toBe(0);
    const runs = runRecords(p.home);
    expect(runs.map((r) => [r.work_item, r.reason])).toEqual([[a, 'wait_triggered']]);
    expect(runs[0].wakes[0]).toMatchObject({ reason: 'wait_triggered', wait: expect.stringMatching(/^wt-/), event: expect.stringMatching(/^e-/) });
    expect(readFileSync(log, 'utf8')).not.toContain(b);
  });

  it('a recheck deadline that passes with no wake resumes the item once, on time', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "rechecked: $HOLON_WAKE"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('CI');
    const wait = await p.json(['wait', id, '--for', 'external:ci:run/3', '--reason', 'CI', '--recheck', '2s']);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    await until(() => runRecords(p.home).some((r) => r.status === 'ok'), 60_000, 'recheck run');
    await sleep(500);
    expect(await w.stop()).toBe(0);
    const runs = runRecords(p.home);
    expect(runs.map((r) => r.reason)).toEqual(['recheck_deadline']);
    expect(runs[0].wakes[0].wait).toBe(wait.wait.id);
    // Never early: the run starts at or after the deadline.
    expect(Date.parse(runs[0].started_at)).toBeGreaterThanOrEqual(Date.parse(wait.wait.recheck_at));
  });

  it('a burst of 20 events for one agent never runs it twice at once, and coalesces', async () => {
    const p = await project('rev');
    const log = armingRunner(p.dir, 'external:ci:run/1');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('watch CI');
    await p.h(['wait', id, '--for', 'external:ci:run/1', '--reason', 'CI']);
    const w = startWatch(p.dir, ['--listen', '127.0.0.1:0']);
    await w.waitFor(/ingress listening/);
    const { url } = await p.json(['ingress', 'url']);
    const codes = await Promise.all(Array.from({ length: 20 }, () => fetch(url, { method: 'POST', body: JSON.stringify({ resource: 'external:ci:run/1', mode: 'wake_hint' }) }).then((r) => r.status)));
    expect(codes.every((c) => c === 202)).toBe(true);
    // Settled: every event admitted, no run running, and no wake pending (no wait triggered and not yet
    // consumed by a run): nothing more can start, so stopping now interrupts nothing.
    const inbox = join(p.home, 'agents/rev/inbox');
    await until(async () => {
      if (existsSync(inbox) && readdirSync(inbox).some((f) => f.endsWith('.yaml'))) return false;
      const runs = runRecords(p.home);
      if (!runs.length || runs.some((r) => r.status === 'running')) return false;
      return (await p.json(['show', id])).waits.every((x: any) => x.status !== 'triggered');
    }, 60_000, 'the burst settled');
    expect(await w.stop()).toBe(0);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).not.toContain('OVERLAP');
    for (let i = 0; i < lines.length; i += 2) expect([lines[i].split(' ')[0], lines[i + 1]?.split(' ')[0]]).toEqual(['start', 'end']);
    const runs = runRecords(p.home);
    // 20 events for one item while the agent is busy give far fewer runs than events.
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.length).toBeLessThan(20);
    expect(runs.every((r) => r.status === 'ok')).toBe(true);
  }, 60_000);

  it('an operator message resumes the item it names (or the focus) with the message in the prompt', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\ncat > "$PWD/prompt-$HOLON_WAKE.txt"\nholon progress "$HOLON_WORK_ITEM" "handled $HOLON_WAKE"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('waiting item');
    await p.h(['wait', id, '--for', 'external:ci:run/5', '--reason', 'CI']);
    await p.h(['pick', id]);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    await p.h(['tell', 'the release moved to Friday; check the changelog too']);
    await until(() => runRecords(p.home).some((r) => r.status === 'ok'), 60_000, 'run');
    expect(await w.stop()).toBe(0);
    const [run] = runRecords(p.home);
    expect(run).toMatchObject({ work_item: id, reason: 'operator_message', progress: true });
    expect(readFileSync(join(p.dir, 'prompt-operator_message.txt'), 'utf8')).toContain('Message from the operator');
    expect(readFileSync(join(p.dir, 'prompt-operator_message.txt'), 'utf8')).toContain('the release moved to Friday');
    // Handled once: a later pass does not run it again for the same message.
    expect(JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs).toEqual([]);
  });

  it('runs that change nothing block the item after watch.no_progress_limit, and it is not run again', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\necho "$HOLON_WAKE" >> "$PWD/wakes.log"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    writeFileSync(join(p.home, 'holon.yaml'), readFileSync(join(p.home, 'holon.yaml'), 'utf8').replace('no_progress_limit: 3', 'no_progress_limit: 2'));
    const id = await p.create('stuck');
    await p.h(['pick', id]);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    // new_work, then operator messages: each run leaves the record unchanged.
    await until(() => runRecords(p.home).some((r) => r.status === 'ok'), 60_000, 'first run');
    await p.h(['tell', '--work', id, 'please look again']);
    await until(() => runRecords(p.home).filter((r) => r.status !== 'running').length >= 2, 60_000, 'second run');
    await sleep(500);
    await p.h(['tell', '--work', id, 'and again']);
    await sleep(1500);
    expect(await w.stop()).toBe(0);
    const runs = runRecords(p.home);
    expect(runs.map((r) => r.progress)).toEqual([false, false]);
    expect(runs.filter((r) => r.blocked).map((r) => r.reason)).toEqual(['operator_message']);
    const item = await p.json(['show', id]);
    expect(item.status).toBe('blocked');
    expect(item.blocker.reason).toMatch(/^no progress: 2 runs in a row/);
    expect(w.log()).toMatch(/blocked for lack of progress/);
  });

  it('restart after SIGKILL: a timer due during the downtime fires exactly once and resumes its item once', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\necho "$HOLON_WAKE" >> "$PWD/wakes.log"\nholon progress "$HOLON_WORK_ITEM" "woke: $HOLON_WAKE"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('recheck later');
    // It waits on something else already, so the first watcher has nothing to run for it.
    await p.h(['wait', id, '--for', 'external:ci:run/77', '--reason', 'CI']);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    expect(await w.stop('SIGKILL')).toBe(null);
    // The timer is set while no watcher runs (the killed one left its lock), and falls due before the restart.
    const wait = await p.json(['wait', id, '--for', 'timer', '--in', '2s', '--reason', 'look again in a moment']);
    await until(() => Date.now() > Date.parse(wait.timer.next_due_at) + 500, 60_000, 'the timer to fall due');
    const again = startWatch(p.dir);
    await again.waitFor(/took over/);
    await until(() => runRecords(p.home).some((r) => r.status === 'ok'), 60_000, 'timer run');
    await sleep(1000);
    expect(await again.stop()).toBe(0);
    const once = await p.h(['watch', '--once', '--json']);
    expect(JSON.parse(once.stdout).runs).toEqual([]);
    expect((again.log().match(/timer t-\S+ fired/g) ?? []).length).toBe(1);
    const timers = readdirSync(join(p.home, 'agents/rev/timers')).filter((f) => f.endsWith('.yaml'));
    expect(timers).toHaveLength(1);
    expect(parseYaml(readFileSync(join(p.home, 'agents/rev/timers', timers[0]), 'utf8')).fire_count).toBe(1);
    // One run: the fire and the timer wait it triggered are coalesced into it.
    const wakes = readFileSync(join(p.dir, 'wakes.log'), 'utf8').trim().split('\n');
    expect(wakes).toHaveLength(1);
    expect(wakes[0].split(',')).toContain('timer_fired');
  });

  it('an event accepted over HTTP survives a SIGKILL right after the 202 and resumes its item once', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\necho "$HOLON_WAKE" >> "$PWD/wakes.log"\nholon progress "$HOLON_WORK_ITEM" "saw the revision"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('PR 101');
    await p.h(['wait', id, '--for', 'external:github:acme/app#101', '--reason', 'revision']);
    await p.h(['ingress', 'url']);
    const { url } = await p.json(['ingress', 'rotate']);
    const w = startWatch(p.dir, ['--listen', '127.0.0.1:0']);
    const port = (await w.waitFor(/ingress listening on http:\/\/127\.0\.0\.1:(\d+)/))[1];
    await w.waitFor(/watching /);
    const live = url.replace(/:\d+\/hooks/, `:${port}/hooks`);
    const res = await fetch(live, { method: 'POST', body: JSON.stringify({ resource: 'external:github:acme/app#101', mode: 'wake_hint' }) });
    expect(res.status).toBe(202);
    w.child.kill('SIGKILL');
    await w.exited;
    await p.h(['watch', '--once']);
    // Killed before admitting it, after admitting it, or during the run it started: either way the
    // item ends up run to completion for it exactly once (plus the interrupted run, if there was one).
    const all = runRecords(p.home);
    const ok = all.filter((r) => r.status === 'ok');
    expect(ok).toHaveLength(1);
    expect(ok[0].reasons.some((x: string) => x === 'wait_triggered' || x === 'interrupted')).toBe(true);
    expect(all.filter((r) => r.status !== 'ok').map((r) => r.status)).toEqual(all.length === 2 ? ['interrupted'] : []);
    expect(JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs).toEqual([]);
    expect((await p.json(['show', id])).progress.map((e: any) => e.text)).toContain('saw the revision');
  });

  it('the seed 000 demo: two PRs, a wait on the author, tests in the background, ingress, delivery', async () => {
    const root = tempDir('holon-demo-test-');
    const sh = new DemoShell(join(root, '.holon'), { ...cleanEnv(), HOLON_AGENT: 'reviewer' }, false);
    const r = await playReviewer(sh);
    const { a, b } = r.items;
    expect(r.runs.map((x) => [x.work_item, x.reasons.join('+'), x.status, x.progress])).toEqual([
      [a, 'new_work', 'ok', true],
      [b, 'new_work', 'ok', true],
      [a, 'wait_triggered', 'ok', true],
      [b, 'wait_triggered', 'ok', true],
    ]);
    for (let i = 1; i < r.runs.length; i++) expect(Date.parse(r.runs[i].started_at)).toBeGreaterThanOrEqual(Date.parse(r.runs[i - 1].ended_at) - 999);
    const show = (id: string) => JSON.parse(sh.holon(['show', id, '--json'], { quiet: true }));
    const A = show(a);
    const B = show(b);
    expect([A.status, B.status]).toEqual(['done', 'done']);
    expect(A.delivery.result).toContain('PR #101 approved');
    expect(A.evidence.map((e: any) => e.commit)).toEqual(['3f9c2ab', '9d2e1f0']);
    expect(A.waits[0]).toMatchObject({ kind: 'external', resource: 'github:acme/app#101', settled_by: { source: 'external', provenance: expect.stringMatching(/^ingress:ig-/) } });
    expect(B.waits[0]).toMatchObject({ kind: 'task', settled_by: { source: 'task' } });
    expect(readFileSync(join(sh.home, 'agents/reviewer/work', `${a}.md`), 'utf8').match(/^- \S+ run r-\S+ \(command, (new_work|wait_triggered)\): ok/gm)).toHaveLength(2);
    expect(r.watchLog).toMatch(/event e-\S+ admitted for reviewer: triggered/);
    expect(r.watchLog).not.toMatch(/hooks\/[A-Za-z0-9_-]{20,}/);
  }, 90_000);
});
