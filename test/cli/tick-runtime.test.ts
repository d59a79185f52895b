import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { project, ROOT } from '../helpers/cli.js';

/** The built runtime, as `holon watch` uses it (tests run after `npm run build`). */
const load = async () => {
  const tick = await import(pathToFileURL(join(ROOT, 'dist/runtime/tick.js')).href);
  const home = await import(pathToFileURL(join(ROOT, 'dist/store/home.js')).href);
  return { ...tick, ...home };
};

describe('nextDueMs and tick() for the watcher', () => {
  it('is the earliest active timer or recheck, 0 with queued events, null when nothing is pending', async () => {
    const { nextDueMs, tick, openHome } = await load();
    const p = await project();
    const home = openHome({ cwd: p.dir, env: {} });
    expect(nextDueMs(home)).toBeNull();
    const a = await p.create('x', [], { HOLON_NOW: '2026-11-30T10:00:00Z' });
    await p.json(['wait', a, '--for', 'external:ci:1', '--reason', 'r', '--recheck', '3h'], { HOLON_NOW: '2026-11-30T10:00:00Z' });
    expect(nextDueMs(home)).toBe(Date.parse('2026-11-30T13:00:00Z'));
    await p.json(['timer', 'add', '--in', '1h'], { HOLON_NOW: '2026-11-30T10:00:00Z' });
    expect(nextDueMs(home)).toBe(Date.parse('2026-11-30T11:00:00Z'));
    const r = await tick(home, Date.parse('2026-11-30T11:00:00Z'));
    expect(r.timers_fired).toHaveLength(1);
    expect(r.events_admitted).toEqual([expect.objectContaining({ source: 'timer', nudged: true })]);
    expect(nextDueMs(home)).toBe(Date.parse('2026-11-30T13:00:00Z'));
    // An event left queued (its notify was killed before admission finished) is due at once.
    await p.h(['notify', 'ci:2'], { HOLON_TEST_KILL_AT: 'admission' });
    expect(nextDueMs(home)).toBe(0);
    expect((await tick(home, Date.now())).events_admitted).toHaveLength(1);
  });
});

describe('demo', () => {
  it('runs the whole story, waits and completion included, without network', async () => {
    const p = await project();
    const r = await p.h(['demo', '--only', 'by-hand']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('triggered wait');
    expect(r.stdout).toMatch(/timer t-\w+ fired/);
    expect(r.stdout).toContain('```untrusted');
    expect(r.stdout).toMatch(/w-\w+ done \(revision/);
    expect(r.stdout).toMatch(/has no problems/);
  });
});
