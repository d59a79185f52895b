import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { writeGraph } from '../helpers/graph.js';

describe('the frontier at scale', () => {
  it('lists 1,200 files in process and gives the answer of a full evaluation, edits included', async () => {
    const p = await project();
    const ids = writeGraph(join(p.home, 'agents/main/work'), 1200);
    const env = { HOLON_NOW: '2026-11-30T06:00:00Z' };
    const first = await p.h(['frontier', '--json'], env);
    expect(first.code).toBe(0);
    const cached = await p.h(['frontier', '--json'], env);
    expect(cached.stdout).toBe(first.stdout);
    const f = JSON.parse(first.stdout);
    expect(f.counts.total).toBe(1200);
    expect(f.counts.runnable).toBeGreaterThan(100);
    expect(f.needs_decision.length).toBeGreaterThan(0);
    // not_runnable is cut to its first 50 (the rest counted); --all lists it in full, same order.
    expect(f.counts.not_runnable).toBeGreaterThan(50);
    expect(f.not_runnable).toHaveLength(50);
    expect(f.truncated).toEqual({ not_runnable: f.counts.not_runnable - 50 });
    const all = JSON.parse((await p.h(['frontier', '--json', '--all'], env)).stdout);
    expect(all.not_runnable).toHaveLength(f.counts.not_runnable);
    expect(all.not_runnable.slice(0, 50)).toEqual(f.not_runnable);
    expect(all.truncated).toEqual({});
    expect({ ...all, not_runnable: [], truncated: {} }).toEqual({ ...f, not_runnable: [], truncated: {} });
    // A hand edit of one file among 1,200 is seen, and the cached answer is not reused.
    const target = f.runnable[f.runnable.length - 1].id;
    const file = p.workFile(target);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/priority: "P\d"/, 'priority: "P0"').replace('status: "open"', 'status: "open"\nexclude: ["main"]'));
    const after = JSON.parse((await p.h(['frontier', '--json'], env)).stdout);
    expect(after.not_runnable.find((x: any) => x.id === target)).toMatchObject({ code: 'excluded' });
    expect(after.runnable.map((x: any) => x.id)).not.toContain(target);
    rmSync(join(p.home, 'local/cache'), { recursive: true, force: true });
    const again = await p.h(['frontier', '--json'], env);
    expect(JSON.parse(again.stdout).counts).toEqual(after.counts);
    expect(ids).toHaveLength(1200);
  });
});
