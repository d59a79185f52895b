import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project, tempDir, type Run } from '../helpers/cli.js';

/** A generous bound: before the fix these commands blocked for ever on opening the FIFO. */
const within = (p: Promise<Run>, what: string, ms = 30_000) =>
  Promise.race([p, new Promise<Run>((_, reject) => setTimeout(() => reject(new Error(`${what} still running after ${ms} ms (hung on a FIFO?)`)), ms).unref())]);

const mkfifo = (path: string) => expect(spawnSync('mkfifo', [path]).status).toBe(0);

describe('files named like records that are not regular files', () => {
  it('a FIFO in work/, timers/, inbox/ and events/ never hangs list, check, tick, frontier or watch: skipped and reported', async () => {
    const p = await project();
    const id = await p.create('a real item');
    const agent = join(p.home, 'agents/main');
    for (const d of ['timers', 'inbox', 'events']) mkdirSync(join(agent, d), { recursive: true });
    mkfifo(join(agent, 'work/w-f1f0f1f0.md'));
    mkfifo(join(agent, 'timers/t-f1f0f1f0.yaml'));
    mkfifo(join(agent, 'inbox/e-f1f0f1f0.yaml'));
    mkfifo(join(agent, 'events/e-f2f0f2f0.yaml'));

    const list = await within(p.h(['list', '--json']), 'list');
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout);
    expect(listed.items.map((i: any) => i.id)).toEqual([id]);

    const check = await within(p.h(['check', '--json']), 'check');
    expect(check.code).toBe(3);
    const problems = JSON.parse(check.stdout).problems;
    for (const f of ['work/w-f1f0f1f0.md', 'timers/t-f1f0f1f0.yaml', 'inbox/e-f1f0f1f0.yaml', 'events/e-f2f0f2f0.yaml']) {
      const mine = problems.filter((x: any) => x.file.endsWith(f));
      expect(mine, f).toHaveLength(1);
      expect(mine[0].message).toMatch(/not a regular file \(a FIFO/);
    }

    for (const args of [['tick', '--json'], ['frontier', '--json'], ['timer', 'list', '--json'], ['inbox', '--json'], ['resume', id], ['watch', '--once', '--json']]) {
      const r = await within(p.h(args), args.join(' '));
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    const show = await within(p.h(['show', 'w-f1f0f1f0']), 'show');
    expect(show.code).toBe(3);
    expect(show.stderr).toMatch(/not a regular file \(a FIFO/);
  });

  it('a folder named like a record: show says what it is (exit 3, not 1), list and check go on', async () => {
    const p = await project();
    const id = await p.create('a real item');
    mkdirSync(join(p.home, 'agents/main/work/w-d1d1d1d1.md'));
    const show = await p.h(['show', 'w-d1d1d1d1']);
    expect(show.code).toBe(3);
    expect(show.stderr).toMatch(/w-d1d1d1d1\.md.*not a regular file \(a directory\)/);
    expect(show.stderr).not.toMatch(/unexpected/);
    const list = await p.h(['list', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).items.map((i: any) => i.id)).toEqual([id]);
    const check = await p.h(['check', '--json']);
    expect(check.code).toBe(3);
    expect(JSON.parse(check.stdout).problems.some((x: any) => x.file.endsWith('w-d1d1d1d1.md') && /a directory/.test(x.message))).toBe(true);
  });

  it('a symlinked record is reported by check', async () => {
    const p = await project();
    const id = await p.create('linked item');
    const elsewhere = join(tempDir(), `${id}.md`);
    renameSync(p.workFile(id), elsewhere);
    symlinkSync(elsewhere, p.workFile(id));
    const check = await p.h(['check', '--json']);
    expect(check.code).toBe(3);
    const mine = JSON.parse(check.stdout).problems.filter((x: any) => x.file.endsWith(`work/${id}.md`));
    expect(mine).toHaveLength(1);
    expect(mine[0].message).toMatch(/symbolic link/);
    expect((await p.h(['show', id])).code).toBe(0);
  });
});
