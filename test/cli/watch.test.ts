import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { gone, runRecords, script, setRunner, sleep, startWatch, until } from '../helpers/watch.js';

describe('holon watch: one watcher per home', () => {
  it('refuses a second watcher (exit 5, naming the first pid) and takes over a stale pid file', async () => {
    const p = await project('rev');
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    const second = await p.h(['watch', '--once']);
    expect(second.code).toBe(5);
    // --json without --once is a usage error (it would be ignored by a watch that never ends).
    expect((await p.h(['watch', '--json'])).code).toBe(2);
    expect(second.stderr).toContain(`pid ${w.child.pid}`);
    expect(await w.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(p.home, 'local/watch.pid'))).toBe(false);
    // A watcher killed with SIGKILL leaves its pid file: the next one sees the pid is dead.
    writeFileSync(join(p.home, 'local/watch.pid'), JSON.stringify({ pid: 999999, started_at: '2026-01-01T00:00:00Z', listen: null }));
    const third = await p.h(['watch', '--once']);
    expect(third.code).toBe(0);
    expect(third.stderr).toContain('pid 999999');
  });
});

describe('holon watch: runs', () => {
  it('runs a command runner for new work with the prompt on stdin and the env, records the run and one History line', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), `#!/bin/sh
cat > "$PWD/prompt.txt"
env | grep '^HOLON_' | sort > "$PWD/env.txt"
holon progress "$HOLON_WORK_ITEM" "read the diff"
`);
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('Review PR #101', ['--title', 'Review PR #101']);
    const once = await p.h(['watch', '--once', '--json']);
    expect(once.code).toBe(0);
    const runs = JSON.parse(once.stdout).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ agent: 'rev', work_item: id, reason: 'new_work', status: 'ok', exit_code: 0, progress: true, runner: 'command' });
    expect(readFileSync(join(p.dir, 'prompt.txt'), 'utf8')).toContain(`# Resume ${id}: Review PR #101`);
    const env = readFileSync(join(p.dir, 'env.txt'), 'utf8');
    for (const line of [`HOLON_AGENT=rev`, `HOLON_WORK_ITEM=${id}`, `HOLON_RUN_ID=${runs[0].id}`, `HOLON_WAKE=new_work`, `HOLON_ACTOR=agent:rev`, `HOLON_HOME=${p.home}`]) expect(env).toContain(line);
    const item = await p.json(['show', id]);
    expect(item.progress.map((e: any) => e.text)).toEqual(['read the diff']);
    expect(readFileSync(p.workFile(id, 'rev'), 'utf8')).toMatch(new RegExp(`## History\\n\\n- \\S+ run ${runs[0].id} \\(command, new_work\\): ok, exit 0`));
    const listed = await p.json(['runs']);
    expect(listed.runs.map((r: any) => r.id)).toEqual([runs[0].id]);
    expect((await p.json(['runs', '--work', 'w-zzzz'])).runs).toEqual([]);
    expect((await p.json(['runs', '--limit', '1'])).runs.map((r: any) => r.id)).toEqual([runs[0].id]);
    for (const bad of ['x', '0', '-2']) expect((await p.h(['runs', '--limit', bad])).code).toBe(3);
    // Run once, the item is no longer new work: a second pass starts nothing.
    const again = await p.h(['watch', '--once', '--json']);
    expect(JSON.parse(again.stdout).runs).toEqual([]);
  });

  it('never runs an agent twice at once: 20 items arriving in a burst run one after another', async () => {
    const p = await project('rev');
    const log = join(p.dir, 'runs.log');
    script(join(p.dir, 'agent.sh'), `#!/bin/sh
if ! mkdir "$PWD/inflight" 2>/dev/null; then echo OVERLAP >> "${log}"; fi
echo "start $HOLON_WORK_ITEM" >> "${log}"
sleep 0.15
echo "end $HOLON_WORK_ITEM" >> "${log}"
rmdir "$PWD/inflight"
`);
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    await Promise.all(Array.from({ length: 4 }, (_, k) => (async () => { for (let i = 0; i < 5; i++) await p.create(`item ${k}-${i}`); })()));
    await until(() => runRecords(p.home).filter((r) => r.status === 'ok').length === 20, 60_000, '20 finished runs');
    expect(await w.stop()).toBe(0);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).not.toContain('OVERLAP');
    expect(lines).toHaveLength(40);
    for (let i = 0; i < lines.length; i += 2) {
      expect(lines[i]).toMatch(/^start /);
      expect(lines[i + 1]).toBe(lines[i].replace('start', 'end'));
    }
  }, 90_000);

  it('--agent watches one agent only', async () => {
    const p = await project('rev');
    expect((await p.h(['agent', 'add', 'dev'])).code).toBe(0);
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "ran as $HOLON_AGENT"\n');
    for (const a of ['rev', 'dev']) setRunner(p.home, a, '{preset: command, command: ./agent.sh}');
    await p.create('for rev');
    await p.create('for dev', [], { HOLON_AGENT: 'dev' });
    const runs = JSON.parse((await p.h(['watch', '--agent', 'dev', '--once', '--json'])).stdout).runs;
    expect(runs.map((r: any) => r.agent)).toEqual(['dev']);
    expect((await p.json(['runs', '--agent', 'rev'])).runs).toEqual([]);
  });

  it('new work claimed by another agent is not run, whatever its name; an expired lease holds nothing', async () => {
    const p = await project('rev');
    for (const a of ['reviewer', 'bob']) expect((await p.h(['agent', 'add', a])).code).toBe(0);
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "ran"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const taken = await p.create('claimed by reviewer');
    expect((await p.h(['claim', taken], { HOLON_ACTOR: 'agent:reviewer' })).code).toBe(0);
    expect(JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs).toEqual([]);
    const lapsed = await p.create('a lease by bob that ended');
    expect((await p.h(['claim', lapsed, '--ttl', '1m'], { HOLON_ACTOR: 'agent:bob', HOLON_NOW: '2020-01-01T00:00:00Z' })).code).toBe(0);
    const runs = JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs;
    expect(runs.map((r: any) => r.work_item)).toEqual([lapsed]);
  });

  it('wakes when another agent\'s lease ends and runs the freed item, with no further change to the home', async () => {
    const p = await project('rev');
    expect((await p.h(['agent', 'add', 'bob'])).code).toBe(0);
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "ran"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const held = await p.create('leased by bob for a moment');
    // An hour's lease, taken before the watcher starts: the watcher must not run it while it holds,
    // however long the watcher takes to start on a busy machine.
    expect((await p.h(['claim', held, '--ttl', '1h'], { HOLON_ACTOR: 'agent:bob' })).code).toBe(0);
    const w = startWatch(p.dir);
    try {
      await w.waitFor(/watching/, 60_000);
      expect(runRecords(p.home)).toEqual([]);
      // Bob shortens it to 2 s; after that nothing changes in the home: only the lease's end can wake the watcher.
      expect((await p.h(['renew', held, '--ttl', '2s'], { HOLON_ACTOR: 'agent:bob' })).code).toBe(0);
      const expires = Date.parse((await p.json(['show', held])).claim.expires_at);
      await until(() => runRecords(p.home).some((r) => r.work_item === held && r.status !== 'running'), 60_000, 'the freed item to run');
      const run = runRecords(p.home).find((r) => r.work_item === held);
      expect(run.reasons).toEqual(['new_work']);
      // Never while the lease held (the run record's clock is the same machine's).
      expect(Date.parse(run.started_at)).toBeGreaterThanOrEqual(expires - 1000);
    } finally {
      await w.stop();
    }
  });

  it('a gated or excluded item is not new work; once its gate is approved it is', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "ran"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const gate = await p.create('Release?', ['--class', 'user_gate', '--decision-scope', 'release:project:app']);
    const gated = await p.create('Publish the release', ['--needs-decision', 'release:action:app']);
    const own = await p.create('Review your own change', ['--exclude', 'rev']);
    const first = await p.h(['watch', '--once', '--json']);
    expect(JSON.parse(first.stdout).runs).toEqual([]);
    // The log says once why each is held back.
    expect(first.stderr).toContain(`not running rev on ${gated} (new work) yet: gate_pending`);
    expect(first.stderr).toContain(`not running rev on ${own} (new work) yet: excluded`);
    expect((await p.h(['decide', gate, '--approve'])).code).toBe(0);
    const runs = JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs;
    expect(runs.map((r: any) => [r.work_item, r.reason])).toEqual([[gated, 'new_work']]);
  });

  it('an item that requires an unverified capability runs once `capabilities --refresh` verifies it', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "ran"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('needs a shell', ['--requires', 'shell']);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    await sleep(500);
    expect(runRecords(p.home)).toEqual([]);
    expect((await p.h(['capabilities', '--refresh'])).code).toBe(0);
    await until(() => runRecords(p.home).some((r) => r.work_item === id && r.status === 'ok'), 60_000, 'run after the refresh');
    expect(await w.stop()).toBe(0);
  });

  it('a stopped agent gets no runs until it is started again', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" done\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    expect((await p.h(['agent', 'stop', 'rev'])).code).toBe(0);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    const id = await p.create('work while stopped');
    await sleep(800);
    expect(runRecords(p.home)).toEqual([]);
    expect((await p.h(['agent', 'start', 'rev'])).code).toBe(0);
    await until(() => runRecords(p.home).some((r) => r.work_item === id && r.status === 'ok'), 60_000, 'run after start');
    expect(await w.stop()).toBe(0);
  });

  it('a running watcher keeps nothing that woke a stopped agent for its start, as a restarted one does not (SPEC 3)', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "woke: $HOLON_WAKE"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const a = await p.create('PR 101');
    const b = await p.create('PR 102');
    for (const [id, r] of [[a, 'external:pr:101'], [b, 'external:pr:102']]) expect((await p.h(['wait', id, '--for', r, '--reason', 'review'])).code).toBe(0);
    const w = startWatch(p.dir);
    await w.waitFor(/watching /);
    expect((await p.h(['agent', 'stop', 'rev'])).code).toBe(0);
    // A wake while stopped (notify admits at once): the watcher sees it, and drops it.
    expect((await p.h(['notify', 'pr:101'])).code).toBe(0);
    await w.waitFor(/not running rev: it is stopped/);
    expect((await p.h(['agent', 'start', 'rev'])).code).toBe(0);
    // A wake after the start runs; the one from before it never does.
    expect((await p.h(['notify', 'pr:102'])).code).toBe(0);
    await until(() => runRecords(p.home).some((r) => r.work_item === b && r.status === 'ok'), 60_000, 'the run of the wake after the start');
    expect(await w.stop()).toBe(0);
    expect(runRecords(p.home).map((r) => r.work_item)).toEqual([b]);
  });

  it('a run_timeout longer than Node\'s longest timer (~24.8 days) does not end the run at once', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nsleep 0.3\nholon progress "$HOLON_WORK_ITEM" "ran"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const agentsMd = join(p.home, 'agents/rev/AGENTS.md');
    writeFileSync(agentsMd, readFileSync(agentsMd, 'utf8').replace('run_timeout: "30m"', 'run_timeout: "30d"'));
    await p.create('long allowed');
    const once = await p.h(['watch', '--once', '--json']);
    expect(JSON.parse(once.stdout).runs[0]).toMatchObject({ status: 'ok', exit_code: 0 });
  });

  it('a run whose end cannot be recorded is logged, not an unhandled rejection that kills the watcher', async () => {
    const p = await project('rev');
    // The runner replaces local/runs with a file: writing the run record at its end fails.
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nsleep 0.3\nrm -rf "$HOLON_HOME/local/runs"\ntouch "$HOLON_HOME/local/runs"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    await p.create('breaks its record');
    const once = await p.h(['watch', '--once', '--json']);
    expect(once.stderr).toMatch(/could not be recorded/);
    expect(once.stderr).not.toMatch(/\n\s+at /);
    expect(once.code).toBe(0);
  });

  it('kills the process group of a run that passes its timeout', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), `#!/bin/sh\nsleep 30 &\necho $! > "$PWD/child.pid"\nwait\n`);
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    // The agent's policy.run_timeout wins over holon.yaml watch.run_timeout; 3 s leaves a loaded machine
    // the time to start the shell and write child.pid before the group is killed.
    const agentsMd = join(p.home, 'agents/rev/AGENTS.md');
    writeFileSync(agentsMd, readFileSync(agentsMd, 'utf8').replace('run_timeout: "30m"', 'run_timeout: "3s"'));
    await p.create('slow');
    // The agent would sleep 30 s; the run's status says it was stopped at its timeout instead.
    const once = await p.h(['watch', '--once', '--json']);
    expect(JSON.parse(once.stdout).runs[0]).toMatchObject({ status: 'timeout' });
    const childPid = Number(readFileSync(join(p.dir, 'child.pid'), 'utf8'));
    await until(() => gone(childPid), 60_000, 'grandchild gone');
  });
});

describe('holon watch: stop and restart', () => {
  it('SIGTERM waits a grace period, marks the run interrupted, and the next start resumes it once', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), `#!/bin/sh
echo "$HOLON_WAKE" >> "$PWD/wakes.txt"
[ "$HOLON_WAKE" = interrupted ] && exec holon progress "$HOLON_WORK_ITEM" resumed
sleep 30
`);
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const id = await p.create('long review');
    const w = startWatch(p.dir, [], { HOLON_WATCH_GRACE_MS: '300' });
    await w.waitFor(/run r-\S+ started/);
    // The runner has begun (a runner killed before its first line would leave only "interrupted").
    await until(() => existsSync(join(p.dir, 'wakes.txt')), 60_000, 'runner started');
    expect(await w.stop('SIGTERM')).toBe(0);
    expect(runRecords(p.home)[0]).toMatchObject({ status: 'interrupted', resumed_by: null });
    const once = JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs;
    expect(once).toHaveLength(1);
    expect(once[0]).toMatchObject({ work_item: id, reason: 'interrupted', status: 'ok' });
    expect(runRecords(p.home).find((r) => r.reason === 'new_work').resumed_by).toBe(once[0].id);
    expect(JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs).toEqual([]);
    expect(readFileSync(join(p.dir, 'wakes.txt'), 'utf8')).toBe('new_work\ninterrupted\n');
  });

  it('after SIGKILL, a restart kills the orphaned runner and resumes the run once with reason interrupted', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), `#!/bin/sh
echo "$HOLON_WAKE $$" >> "$PWD/wakes.txt"
[ "$HOLON_WAKE" = interrupted ] && exec holon progress "$HOLON_WORK_ITEM" resumed
sleep 30
`);
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    await p.create('long review');
    const w = startWatch(p.dir);
    await w.waitFor(/run r-\S+ started/);
    await until(() => existsSync(join(p.dir, 'wakes.txt')), 60_000, 'runner started');
    expect(await w.stop('SIGKILL')).toBe(null);
    const orphan = Number(readFileSync(join(p.dir, 'wakes.txt'), 'utf8').split(' ')[1]);
    expect(runRecords(p.home)[0]).toMatchObject({ status: 'running', ended_at: null });
    const once = await p.h(['watch', '--once', '--json']);
    expect(once.stderr).toContain('took over');
    expect(JSON.parse(once.stdout).runs.map((r: any) => r.reason)).toEqual(['interrupted']);
    await until(() => gone(orphan), 60_000, 'orphaned runner gone');
    expect(runRecords(p.home).find((r) => r.reason === 'new_work')).toMatchObject({ status: 'interrupted' });
    expect(JSON.parse((await p.h(['watch', '--once', '--json'])).stdout).runs).toEqual([]);
  });
});
