import { readFileSync, renameSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { gone, until } from '../helpers/watch.js';


const STEPS = ['item-done', 'timer-cancel'] as const;

describe('complete and supersede killed half-way are repaired, and check names what they left', () => {
  for (const verb of ['complete', 'supersede'] as const) {
    for (const step of STEPS) {
      it(`${verb} SIGKILLed at ${step}: check reports the done item's live timer, the next tick cancels it, a timer another item waits on is kept`, async () => {
        const p = await project();
        const x = await p.create('the item that finishes');
        const z = await p.create('another item that waits on one of its timers');
        const by = await p.create('the replacement');
        const timer = async (args: string[]) => (await p.json(['timer', 'add', ...args, '--work', x])).id as string;
        const t1 = await timer(['--in', '1h', '--every', '1h']);
        const t2 = await timer(['--in', '2h']);
        const t3 = await timer(['--in', '3h']);
        expect((await p.h(['wait', z, '--for', `timer:${t3}`, '--reason', 'shared timer'])).code).toBe(0);
        expect((await p.h(['wait', x, '--for', 'external:ci:run/1', '--reason', 'CI'])).code).toBe(0);

        const args = verb === 'complete' ? ['complete', x, '--result', 'r', '--evidence', 'e', '--no-followup', 'n'] : ['supersede', x, '--by', by, '--reason', 'replaced'];
        const killed = await p.h(args, { HOLON_TEST_KILL_AT: step });
        expect(killed.code).not.toBe(0);
        expect((await p.json(['show', x])).status).toBe('done');
        const active = async () => (await p.json(['timer', 'list', '--all'])).timers.filter((t: any) => t.status === 'active').map((t: any) => t.id).sort();
        expect((await active()).length).toBeGreaterThan(1);

        const check = await p.h(['check', '--json']);
        expect(check.code).toBe(3);
        const problems = JSON.parse(check.stdout).problems;
        const orphaned = problems.filter((q: any) => /which is done: it fires for nothing/.test(q.message));
        expect(orphaned.length).toBeGreaterThan(0);
        expect(orphaned.some((q: any) => q.file.includes(t3))).toBe(false);

        expect((await p.h(['tick', '--json'])).code).toBe(0);
        expect(await active()).toEqual([t3]);
        const timers = (await p.json(['timer', 'list', '--all'])).timers;
        for (const t of [t1, t2]) expect(timers.find((q: any) => q.id === t).status).toBe('cancelled');
        expect((await p.json(['show', z])).waits[0].status).toBe('active');
        const after = await p.h(['check']);
        expect(after.code, after.stderr).toBe(0);
      });
    }
  }

  it('a done item with a live wait: check reports it, tick settles it', async () => {
    const p = await project();
    const x = await p.create('done with a wait');
    expect((await p.h(['wait', x, '--for', 'external:ci:run/1', '--reason', 'CI'])).code).toBe(0);
    expect((await p.h(['complete', x, '--result', 'r', '--evidence', 'e', '--no-followup', 'n'])).code).toBe(0);
    // What a crash or a bad merge can leave: the item done, its wait active again.
    writeFileSync(p.workFile(x), readFileSync(p.workFile(x), 'utf8').replace('status: "cancelled"', 'status: "active"'));
    const check = await p.h(['check', '--json']);
    expect(check.code).toBe(3);
    expect(JSON.parse(check.stdout).problems.some((q: any) => /done WorkItem has live wait/.test(q.message))).toBe(true);
    expect((await p.h(['tick'])).code).toBe(0);
    expect((await p.json(['show', x])).waits[0].status).toBe('cancelled');
    expect((await p.h(['check'])).code).toBe(0);
  });

  it('check reports a wait on a task that does not exist and records in another agent\'s folder', async () => {
    const p = await project();
    expect((await p.h(['agent', 'add', 'bob'])).code).toBe(0);
    const x = await p.create('waits on a task');
    // Runs until the test says so: the wait must find it running, and it must not write its record again
    // meanwhile. (It also ends once the temp folder is gone: the cleanup may beat its next look at `go`.)
    const go = join(p.dir, 'go');
    const task = (await p.h(['task', 'run', '--work', x, '--', 'sh', '-c', `while [ ! -f '${go}' ] && [ -d '${p.dir}' ]; do sleep 0.05; done`])).stdout.trim().split(/\s+/).find((w) => w.startsWith('k-'))!;
    expect(task).toMatch(/^k-/);
    expect((await p.h(['wait', x, '--for', `task:${task}`, '--reason', 'the task'])).code).toBe(0);
    // The supervisor notes the command's pid in the record once it has started it: after that it
    // writes again only when the command ends, so the record stays removed (before, a late note could
    // write it back: a failure on a loaded machine).
    const record = join(p.home, 'local/tasks', `${task}.json`);
    await until(() => JSON.parse(readFileSync(record, 'utf8')).pid != null, 60_000, 'the supervisor to start the task');
    const supervisor = JSON.parse(readFileSync(record, 'utf8')).supervisor_pid as number;
    unlinkSync(record);
    const moved = await p.create('moved by hand');
    mkdirSync(join(p.home, 'agents/bob/work'), { recursive: true });
    renameSync(p.workFile(moved), p.workFile(moved, 'bob'));
    const t = (await p.json(['timer', 'add', '--in', '1h'])).id;
    mkdirSync(join(p.home, 'agents/bob/timers'), { recursive: true });
    renameSync(join(p.home, 'agents/main/timers', `${t}.yaml`), join(p.home, 'agents/bob/timers', `${t}.yaml`));
    const check = await p.h(['check', '--json']);
    expect(check.code).toBe(3);
    const messages = JSON.parse(check.stdout).problems.map((q: any) => `${q.file}: ${q.message}`);
    expect(messages.some((m: string) => m.includes(`waits on task ${task}, which does not exist`))).toBe(true);
    expect(messages.some((m: string) => m.includes(`${moved}.md: WorkItem of agent "main" in agent "bob"'s folder`))).toBe(true);
    expect(messages.some((m: string) => m.includes(`${t}.yaml: timer of agent "main" in agent "bob"'s folder`))).toBe(true);
    writeFileSync(go, '');
    // The supervisor writes the task's end (its record, its event) under local/: the cleanup waits for
    // it to be done, or it could remove the folder while a file is being written in it (ENOTEMPTY).
    await until(() => gone(supervisor), 60_000, 'the supervisor to end');
  });
});
