import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWorkText } from '../../dist/store/work-store.js';
import { viewOf } from '../../dist/core/workitem.js';
import { project, ROOT } from '../helpers/cli.js';

const worker = (script: string, args: string[]) =>
  spawn(process.execPath, [join(ROOT, 'test/helpers', script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });

const exited = (child: ReturnType<typeof worker>) =>
  new Promise<number>((res) => child.on('exit', (code, signal) => res(code ?? (signal ? 128 : 1))));

const firstLine = (child: ReturnType<typeof worker>) =>
  new Promise<string>((res) => child.stdout!.once('data', (d) => res(String(d))));

describe('safe writes', () => {
  it('8 processes appending 50 progress entries each to one item: all 400 are there', async () => {
    const p = await project();
    const id = await p.create('contended item');
    const children = Array.from({ length: 8 }, (_, n) => worker('append-worker.mjs', [p.home, id, '50', `p${n}`]));
    const codes = await Promise.all(children.map(exited));
    expect(codes).toEqual(Array(8).fill(0));
    const text = readFileSync(p.workFile(id), 'utf8');
    const view = viewOf(parseWorkText(text, 'x', id));
    expect(view.progress).toHaveLength(400);
    for (let n = 0; n < 8; n++) expect(view.progress.filter((e: any) => e.text.startsWith(`p${n} `))).toHaveLength(50);
    expect(view.revision).toBe(401);
  });

  it('a writer killed with SIGKILL never leaves a torn or unparsable record', async () => {
    const p = await project();
    const id = await p.create('killed writer');
    for (let round = 0; round < 6; round++) {
      const child = worker('append-worker.mjs', [p.home, id, '0', `r${round}`, 'loop']);
      await firstLine(child);
      await new Promise((r) => setTimeout(r, 5 + ((round * 37) % 60)));
      child.kill('SIGKILL');
      await exited(child);
      const text = readFileSync(p.workFile(id), 'utf8');
      expect(() => parseWorkText(text, 'x', id)).not.toThrow();
    }
    // No temp files leak into the tracked tree; they stay under local/.
    expect(readdirSync(join(p.home, 'agents/main/work')).filter((f) => !f.endsWith('.md') && f !== '.gitkeep')).toEqual([]);
    const r = await p.h(['check']);
    expect(r.code).toBe(0);
  });

  it('a stale lock from a killed process does not block the next writer for long', async () => {
    const p = await project();
    const id = await p.create('stale lock');
    const holder = worker('hold-lock.mjs', [p.home, `main.${id}`]);
    expect(await firstLine(holder)).toContain('locked');
    holder.kill('SIGKILL');
    await exited(holder);
    // How long the stale lock delays the writer is measured in bench/timings.mjs; here: it gets through.
    const r = await p.h(['progress', id, 'after the crash']);
    expect(r.code, r.stderr).toBe(0);
    expect((await p.json(['show', id])).progress.map((e: any) => e.text)).toEqual(['after the crash']);
  });

  it('a live lock holder makes a writer wait, not fail, and not lose its entry', async () => {
    const p = await project();
    const id = await p.create('live lock');
    const holder = worker('hold-lock.mjs', [p.home, `main.${id}`]);
    await firstLine(holder);
    const pending = p.h(['progress', id, 'queued behind the holder']);
    await new Promise((r) => setTimeout(r, 1000));
    holder.kill('SIGTERM');
    await exited(holder);
    const r = await pending;
    expect(r.code).toBe(0);
    expect((await p.json(['show', id])).progress).toHaveLength(1);
  });
});
