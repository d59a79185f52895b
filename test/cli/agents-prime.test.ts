import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, tempDir } from '../helpers/cli.js';

const NOW = { HOLON_NOW: '2026-11-30T06:00:00Z' };

/** n open items written straight to disk (fast), with titles of a realistic length. */
function populate(work: string, n: number): void {
  for (let i = 0; i < n; i++) {
    const id = `w-p${i.toString(32).padStart(6, '0')}`;
    const fm = [`id: "${id}"`, `title: "Review the change to module ${i} and deliver a conclusion with evidence"`, 'agent: "main"', 'status: "open"', 'class: "advancement_task"', `priority: "P${i % 5}"`, `created_at: "2026-11-01T00:${String(i % 60).padStart(2, '0')}:00Z"`, 'revision: 1'];
    writeFileSync(join(work, `${id}.md`), `---\n${fm.join('\n')}\n---\n\n## Objective\n\nReview module ${i}.\n`);
  }
}

describe('holon prime', () => {
  it('outside a home says how to start one and exits 0, also as JSON', async () => {
    const dir = tempDir();
    const r = await holon(['prime'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('holon init');
    const j = await holon(['prime', '--json'], { cwd: dir });
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ home: false });
  });

  it('in an empty home: role, no focus, how to start, the loop', async () => {
    const p = await project();
    const r = await p.h(['prime'], NOW);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('you are agent "main"');
    expect(r.stdout).toContain('## No focus');
    expect(r.stdout).toContain('holon new "what must be delivered" --pick');
    expect(r.stdout).toContain('holon complete ID');
    const j = await p.json(['prime'], NOW);
    expect(j).toMatchObject({ home: true, agent: 'main', focus: null });
    const hook = await p.h(['prime', '--hook-json'], NOW);
    expect(hook.code).toBe(0);
    const out = JSON.parse(hook.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toBe(r.stdout);
    expect(j.frontier.counts.total).toBe(0);
  });

  it('with no focus shows a short frontier; with a focus, its resume context and waits; under 1,500 tokens at 50 items', async () => {
    const p = await project();
    populate(join(p.home, 'agents/main/work'), 50);
    const nofocus = await p.h(['prime'], NOW);
    expect(nofocus.code).toBe(0);
    expect(nofocus.stdout).toContain('Runnable (top first');
    expect(nofocus.stdout).toContain('45 more: holon frontier');
    const id = await p.create('Fix the flaky parser test and prove it on CI', ['--pick'], NOW);
    expect((await p.h(['progress', id, 'found the race in the tokenizer'], NOW)).code).toBe(0);
    expect((await p.h(['wait', id, '--for', 'external:ci:run/7731', '--reason', 'CI on the fix commit'], NOW)).code).toBe(0);
    const r = await p.h(['prime'], NOW);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`## Focus: ${id} Fix the flaky parser test`);
    expect(r.stdout).toContain('found the race in the tokenizer');
    expect(r.stdout).toContain('external:ci:run/7731 active: CI on the fix commit');
    expect(r.stdout).toContain(`holon wait ${id} --for`);
    expect(r.stdout).toContain('Your other open items (50)');
    // Size as tokens, estimated at 4 characters a token (no tokenizer offline).
    for (const text of [nofocus.stdout, r.stdout]) expect(text.length / 4).toBeLessThan(1500);
    const j = await p.json(['prime'], NOW);
    expect(j.focus.work_item.id).toBe(id);
    expect(j.focus.waits[0]).toMatchObject({ kind: 'external', resource: 'ci:run/7731', status: 'active' });
    expect(j.focus.other_items).toHaveLength(5);
    expect(j.focus.other_items_count).toBe(50);
    // The resume context (a runner's prompt) lists the first 20 of them and counts them all.
    const rj = await p.json(['resume', id], NOW);
    expect(rj.other_items).toHaveLength(20);
    expect(rj.other_items_count).toBe(50);
    const rt = await p.h(['resume', id], NOW);
    expect(rt.stdout).toContain('## Your other open items (50)');
    expect(rt.stdout).toContain('- ... and 30 more: `holon list`');
  });

  it('never fails in a home: a focus naming a missing item becomes a note', async () => {
    const p = await project();
    writeFileSync(join(p.home, 'agents/main/focus.yaml'), 'work_item: "w-gone0000"\nsince: "2026-11-30T05:00:00Z"\n');
    const r = await p.h(['prime'], NOW);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('note: the focus w-gone0000 could not be read');
  });
});
