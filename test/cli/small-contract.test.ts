import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, project } from '../helpers/cli.js';
import { script, setRunner } from '../helpers/watch.js';

describe('small parts of the contract', () => {
  it('init run again in a home adds no agent nobody asked for; with --agent it adds that one', async () => {
    const p = await project('rev');
    const again = await p.h(['init', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ agent: null, created: [], existed: true });
    expect(existsSync(join(p.home, 'agents/main'))).toBe(false);
    expect((await p.json(['agent', 'list'])).agents.map((a: any) => a.name)).toEqual(['rev']);
    expect((await p.h(['--agent', 'bob', 'init'])).code).toBe(0);
    expect((await p.json(['agent', 'list'])).agents.map((a: any) => a.name).sort()).toEqual(['bob', 'rev']);
  });

  it('`holon help frontire` is a usage error (2) suggesting the command; `holon --help` groups the commands', async () => {
    const p = await project();
    const r = await p.h(['help', 'frontire']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frontire"');
    expect(r.stderr).toContain('holon help frontier');
    expect(r.stdout).toBe('');
    expect((await p.h(['help', 'frontier'])).code).toBe(0);
    const help = (await p.h(['--help'])).stdout;
    for (const h of ['Home and agents:', 'WorkItems:', 'Waits, events and timers:', 'Frontier, decisions and claims:', 'Watch mode:']) expect(help).toContain(h);
    expect(help.indexOf('WorkItems:')).toBeLessThan(help.indexOf('  complete '));
    expect(help.indexOf('Waits, events and timers:')).toBeGreaterThan(help.indexOf('  complete '));
  });

  it('`holon completion bash` completes commands, subcommands and options in a real bash; zsh and fish print scripts; others are usage', async () => {
    const p = await project();
    const complete = (words: string[]) =>
      execFileSync('bash', ['-c', `source <("${process.execPath}" "${BIN}" completion bash); COMP_WORDS=(${words.map((w) => `"${w}"`).join(' ')}); COMP_CWORD=${words.length - 1}; _holon; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8' }).trim();
    expect(complete(['holon', 'fron'])).toBe('frontier');
    expect(complete(['holon', 'timer', 'ca'])).toBe('cancel');
    expect(complete(['holon', 'timer', 'add', '--ev'])).toBe('--every');
    expect(complete(['holon', 'claim', '--expected'])).toBe('--expected-version');
    expect((await p.h(['completion', 'zsh'])).stdout).toContain('#compdef holon');
    expect((await p.h(['completion', 'fish'])).stdout).toContain("complete -c holon -n '__fish_use_subcommand'");
    expect((await p.h(['completion', 'tcsh'])).code).toBe(2);
  });

  it('messages say "an advancement_task"; an AGENTS.md YAML error suggests AGENTS.md fields, not a WorkItem\'s', async () => {
    const p = await project('rev');
    const a = await p.create('not a gate');
    const r = await p.h(['decide', a, '--approve']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('is an advancement_task, not a user_gate');
    writeFileSync(join(p.home, 'agents/rev/AGENTS.md'), '---\nagent: "rev"\nrunner: {preset: command\n---\n# rev\n');
    const c = await p.h(['check']);
    expect(c.code).toBe(3);
    expect(c.stdout + c.stderr).toContain('AGENTS.md starts with its front matter');
    expect(c.stdout + c.stderr).toContain('runner:');
    expect(c.stdout + c.stderr).not.toContain('title: "Review PR #101"');
  });

  it('notify on a resource one character off an active wait hints at the wait; an exact one triggers it', async () => {
    const p = await project();
    const a = await p.create('CI');
    await p.h(['wait', a, '--for', 'external:ci:run/7731', '--reason', 'CI']);
    const off = await p.h(['notify', 'ci:run/7732']);
    expect(off.code).toBe(0);
    expect(off.stderr).toContain(`hint: ${a} waits on external:ci:run/7731, one character off`);
    const far = await p.h(['notify', 'ci:run/99']);
    expect(far.stderr).not.toContain('hint:');
    const exact = await p.h(['notify', 'ci:run/7731']);
    expect(exact.stderr).toContain(`of ${a}`);
    expect(exact.stderr).not.toContain('hint:');
  });

  it('a timer wait shows its due time in list and frontier, not the fallback recheck a day later', async () => {
    const p = await project();
    const now = { HOLON_NOW: '2026-11-30T10:00:00Z' };
    const a = await p.create('recheck the deploy', [], now);
    const w = await p.json(['wait', a, '--for', 'timer', '--in', '2h', '--reason', 'deploy window'], now);
    expect(w.wait).toMatchObject({ due_at: '2026-11-30T12:00:00Z', recheck_at: '2026-12-01T12:00:00Z' });
    expect((await p.h(['list'], now)).stdout).toContain(`timer:${w.timer.id} (due in 2h)`);
    const f = await p.json(['frontier'], now);
    expect(f.waiting[0].detail).toBe(`waits for timer:${w.timer.id} (due at 2026-11-30T12:00:00Z)`);
    // An external wait still shows its recheck.
    const b = await p.create('CI', [], now);
    await p.h(['wait', b, '--for', 'external:ci:run/1', '--reason', 'CI', '--recheck', '6h'], now);
    expect((await p.h(['list'], now)).stdout).toContain('external:ci:run/1 (recheck in 6h)');
  });

  it('the watcher does not run a continuous_monitor with no next check as new work (an advancement_task beside it runs)', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "checked"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const m = await p.create('watch the error rate', ['--class', 'continuous_monitor']);
    const task = await p.create('fix the build');
    expect((await p.json(['explain', m])).code).toBe('monitor_unscheduled');
    expect((await p.json(['pick'])).focus).toBe(task);
    const runs = (await p.json(['watch', '--once'])).runs;
    expect(runs.map((r: any) => r.work_item)).toEqual([task]);
    expect((await p.json(['watch', '--once'])).runs).toEqual([]);
  }, 120_000);

  /** Agent rev, running a script, with two reviews waiting on far-off events; the clock at second s. */
  const twoReviews = async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "woke: $HOLON_WAKE"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const at = (s: number) => ({ HOLON_NOW: `2026-06-01T00:00:${String(s).padStart(2, '0')}Z` });
    const a = await p.create('PR 101', [], at(0));
    const b = await p.create('PR 102', [], at(0));
    for (const [id, r] of [[a, 'external:pr:101'], [b, 'external:pr:102']]) await p.h(['wait', id, '--for', r, '--reason', 'review', '--recheck', '2030-01-01T00:00:00Z'], at(0));
    return { p, at, a, b };
  };

  it('stopping an agent makes old continuations ineligible: a wait triggered while stopped does not run after start; a later one does', async () => {
    const { p, at, b } = await twoReviews();
    expect((await p.h(['agent', 'stop', 'rev'], at(1))).code).toBe(0);
    expect((await p.h(['notify', 'pr:101'], at(2))).code).toBe(0);
    expect((await p.json(['watch', '--once'])).runs).toEqual([]);
    expect((await p.h(['agent', 'start', 'rev'], at(5))).code).toBe(0);
    expect((await p.json(['watch', '--once'])).runs).toEqual([]);
    expect((await p.h(['notify', 'pr:102'], at(9))).code).toBe(0);
    const runs = (await p.json(['watch', '--once'])).runs;
    expect(runs.map((r: any) => [r.work_item, r.reason])).toEqual([[b, 'wait_triggered']]);
  }, 120_000);

  it('an operator message while stopped is not continued after the start, even in its second; one after it is', async () => {
    // Both wait on something far off: only the messages can wake them.
    const { p, at, a, b } = await twoReviews();
    expect((await p.h(['agent', 'stop', 'rev'], at(1))).code).toBe(0);
    expect((await p.h(['tell', '--work', a, 'look at the new comments'], at(2))).code).toBe(0);
    // In the second of the start, before it: as stale as the one before.
    expect((await p.h(['tell', '--work', b, 'and at the old ones'], at(5))).code).toBe(0);
    expect((await p.h(['agent', 'start', 'rev'], at(5))).code).toBe(0);
    expect((await p.json(['watch', '--once'])).runs).toEqual([]);
    // Still in that second, after the start: it runs.
    expect((await p.h(['tell', '--work', b, 'and at these'], at(5))).code).toBe(0);
    const runs = (await p.json(['watch', '--once'])).runs;
    expect(runs.map((r: any) => [r.work_item, r.reason])).toEqual([[b, 'operator_message']]);
  }, 120_000);

  it('in the second of a start, a wait triggered before it stays ineligible and one triggered after it runs', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "woke: $HOLON_WAKE"\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    // A clock that holds still: the stop's notify, the start and the next notify share one second.
    const at = { HOLON_NOW: '2026-06-01T00:00:01Z' };
    const a = await p.create('PR 101', [], at);
    const b = await p.create('PR 102', [], at);
    for (const [id, r] of [[a, 'external:pr:101'], [b, 'external:pr:102']]) await p.h(['wait', id, '--for', r, '--reason', 'review', '--recheck', '2030-01-01T00:00:00Z'], at);
    expect((await p.h(['agent', 'stop', 'rev'], { HOLON_NOW: '2026-06-01T00:00:00Z' })).code).toBe(0);
    expect((await p.h(['notify', 'pr:101'], at)).code).toBe(0);
    expect((await p.h(['agent', 'start', 'rev'], at)).code).toBe(0);
    expect((await p.h(['notify', 'pr:102'], at)).code).toBe(0);
    const runs = (await p.json(['watch', '--once'])).runs;
    expect(runs.map((r: any) => [r.work_item, r.reason])).toEqual([[b, 'wait_triggered']]);
  }, 120_000);
});
