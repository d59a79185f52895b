import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, project, ROOT, spawnHolon } from '../helpers/cli.js';
import { gone } from '../helpers/watch.js';

type P = Awaited<ReturnType<typeof project>>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function tickUntil(p: P, pred: (r: any) => boolean, ms = 45_000) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await p.json(['tick']);
    if (pred(r)) return r;
    if (Date.now() > end) throw new Error('condition never held');
    await sleep(150);
  }
}

describe('notify when admission cannot run', () => {
  it('leaves the event queued for the next tick, which admits it', async () => {
    const p = await project();
    const a = await p.create('x');
    const w = await p.json(['wait', a, '--for', 'external:ci:run/5', '--reason', 'r']);
    const holder = spawn(process.execPath, [join(ROOT, 'test/helpers/hold-lock.mjs'), p.home, `main.${a}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((res) => holder.stdout!.once('data', () => res()));
    const r = await p.json(['notify', 'ci:run/5']);
    expect(r).toMatchObject({ admitted: false, status: 'queued', disposition: null });
    expect((await p.json(['inbox'])).queued.map((e: any) => e.id)).toEqual([r.id]);
    holder.kill('SIGKILL');
    await new Promise((res) => holder.on('exit', res));
    const t = await p.json(['tick']);
    expect(t.events_admitted).toEqual([expect.objectContaining({ event: r.id, triggered: [{ work_item: a, wait: w.wait.id }] })]);
    expect((await p.json(['inbox'])).queued).toEqual([]);
  });
});

describe('task supervision', () => {
  it('a task survives the death of the process group that started it', async () => {
    const p = await project();
    // A "terminal": a shell in its own process group that starts the task, then is killed with its group.
    const term = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" task run -- sh -c 'sleep 1; echo survived'; sleep 30`], { cwd: p.dir, env: cleanEnv(), detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    const handle = await new Promise<string>((res) => term.stdout!.once('data', (d) => res(String(d).trim())));
    expect(handle).toMatch(/^k-/);
    process.kill(-term.pid!, 'SIGKILL');
    const r = await tickUntil(p, (x) => x.tasks_finished.length > 0);
    expect(r.tasks_finished).toEqual([{ task: handle, agent: 'main', exit_code: 0 }]);
    expect((await p.json(['task', 'show', handle])).output_tail).toBe('survived\n');
  });

  it('a task whose supervisor died is reported lost once, with its output so far', async () => {
    const p = await project();
    const a = await p.create('x');
    const run = await p.h(['task', 'run', '--json', '--', 'sh', '-c', 'echo partial; sleep 60']);
    const t = JSON.parse(run.stdout);
    await p.json(['wait', a, '--for', `task:${t.id}`, '--reason', 'r']);
    const recordFile = join(p.home, 'local/tasks', `${t.id}.json`);
    let rec: any;
    // Until the supervisor has started the command and it has printed (a generous bound: the machine is shared).
    for (const end = Date.now() + 60_000; ; await sleep(50)) {
      rec = JSON.parse(readFileSync(recordFile, 'utf8'));
      if (rec.supervisor_pid && rec.pid && readFileSync(rec.log, 'utf8').includes('partial')) break;
      if (Date.now() > end) throw new Error(`the task never started: ${JSON.stringify(rec)}`);
    }
    process.kill(rec.supervisor_pid, 'SIGKILL');
    process.kill(rec.pid, 'SIGKILL');
    const r = await tickUntil(p, (x) => x.tasks_finished.length > 0);
    expect(r.tasks_finished).toEqual([{ task: t.id, agent: 'main', exit_code: null }]);
    expect(r.wakes).toContainEqual(expect.objectContaining({ reason: 'wait_triggered', work_item: a }));
    expect((await p.json(['task', 'show', t.id])).status).toBe('lost');
    expect((await p.h(['resume', a])).stdout).toMatch(/```untrusted\nlost \(its supervisor is gone[\s\S]*partial/);
    expect((await p.json(['tick'])).tasks_finished).toEqual([]);
    const events = readdirSync(join(p.home, 'agents/main/events')).filter((f) => f.endsWith('.yaml'));
    expect(events).toHaveLength(1);
  });
});

describe('a task that finishes during a tick', () => {
  it('is reported by the pass that admits its result event, with the wake it causes', async () => {
    const p = await project();
    const a = await p.create('x');
    const t = JSON.parse((await p.h(['task', 'run', '--json', '--', 'sh', '-c', 'while [ ! -f go ]; do sleep 0.05; done'])).stdout);
    const w = await p.json(['wait', a, '--for', `task:${t.id}`, '--reason', 'r']);
    const recordFile = join(p.home, 'local/tasks', `${t.id}.json`);
    let rec: any;
    for (const end = Date.now() + 60_000; ; await sleep(50)) {
      rec = JSON.parse(readFileSync(recordFile, 'utf8'));
      if (rec.supervisor_pid) break;
      if (Date.now() > end) throw new Error(`the task never started: ${JSON.stringify(rec)}`);
    }
    // The supervisor's last step, held open: event queued under the task's lock, record still "running".
    const sup = spawn(process.execPath, [join(ROOT, 'test/helpers/half-finished-task.mjs'), p.home, t.id], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((res) => sup.stdout!.once('data', () => res()));
    const tick = spawnHolon(['tick', '--json'], { cwd: p.dir });
    let out = '';
    tick.stdout!.on('data', (d) => (out += d));
    const ticked = new Promise((res) => tick.on('close', res));
    // Once the tick has admitted the event, its task phase saw the task running; then the record is written.
    const admitted = join(p.home, 'agents/main/events', `${t.event}.yaml`);
    for (const end = Date.now() + 60_000; !existsSync(admitted); await sleep(20)) if (Date.now() > end) throw new Error('never admitted');
    sup.stdin!.end('write\n');
    await new Promise((res) => sup.on('exit', res));
    expect(await ticked).toBe(0);
    const r = JSON.parse(out);
    expect(r.tasks_finished).toEqual([{ task: t.id, agent: 'main', exit_code: 0 }]);
    expect(r.wakes).toContainEqual(expect.objectContaining({ reason: 'wait_triggered', work_item: a, wait: w.wait.id }));
    // The real supervisor ends later: nothing is reported or queued twice.
    writeFileSync(join(p.dir, 'go'), '');
    for (const end = Date.now() + 60_000; !gone(rec.supervisor_pid); await sleep(50)) if (Date.now() > end) throw new Error('the supervisor never ended');
    expect((await p.json(['tick'])).tasks_finished).toEqual([]);
    expect(readdirSync(join(p.home, 'agents/main/events')).filter((f) => f.endsWith('.yaml'))).toHaveLength(1);
  });
});

describe('task start failure', () => {
  it('a supervisor that cannot start is an error with no record left, not a crash', async () => {
    const p = await project();
    const script = `
      import { startTask } from ${JSON.stringify(join(ROOT, 'dist/runtime/tasks.js'))};
      import { openHome } from ${JSON.stringify(join(ROOT, 'dist/store/home.js'))};
      import { listTasks } from ${JSON.stringify(join(ROOT, 'dist/store/tasks.js'))};
      const home = openHome({ cwd: ${JSON.stringify(p.dir)}, env: {} });
      try {
        await startTask(home, 'main', null, ['true'], ${JSON.stringify(join(p.dir, 'gone'))}, Date.now());
        console.log('started');
      } catch (err) {
        console.log(JSON.stringify({ exitCode: err.exitCode, message: err.message, tasks: listTasks(home).length }));
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise((res) => child.on('exit', res));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ exitCode: 3, message: expect.stringContaining('could not start the task'), tasks: 0 });
  });
});
