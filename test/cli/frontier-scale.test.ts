import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

/** Writes n items straight to disk (fast), with dependencies, gates, claims and waits. */
function populate(work: string, n: number): string[] {
  const ids = Array.from({ length: n }, (_, i) => `w-s${i.toString(32).padStart(6, '0')}`);
  ids.forEach((id, i) => {
    const lines = [`id: "${id}"`, `title: "item ${i}"`, 'agent: "main"', `status: "${i % 3 === 0 ? 'done' : 'open'}"`];
    lines.push(i % 50 === 7 ? 'class: "user_gate"' : 'class: "advancement_task"');
    if (i % 50 === 7) lines.push('decision_scope:', `  scope: "api:action:k${i % 4}"`);
    lines.push(`priority: "P${i % 5}"`, `created_at: "2026-11-01T00:${String(i % 60).padStart(2, '0')}:00Z"`, 'revision: 1');
    if (i > 0 && i % 4 === 1) lines.push('depends_on:', `  - "${ids[i - 1]}"`);
    if (i % 11 === 3) lines.push('needs_decision:', `  - "api:action:k${i % 4}"`);
    if (i % 13 === 5) lines.push('claim:', '  holder: "agent:peer"', '  claimed_at: "2026-11-30T05:00:00Z"', '  expires_at: "2026-11-30T07:00:00Z"', '  version: 1', '  epoch: 1');
    writeFileSync(join(work, `${id}.md`), `---\n${lines.join('\n')}\n---\n\n## Objective\n\nitem ${i}\n`);
  });
  return ids;
}

describe('the frontier at scale', () => {
  it('lists 1,200 files in process and gives the answer of a full evaluation, edits included', async () => {
    const p = await project();
    const ids = populate(join(p.home, 'agents/main/work'), 1200);
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
