import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { runRecords, script, setRunner, startWatch, until } from '../helpers/watch.js';

/** The fires of timers recorded in the home: admitted events and queued ones. */
function fireEvents(home: string): { admitted: string[]; queued: string[] } {
  const ids = (dir: string) =>
    existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.yaml') && readFileSync(join(dir, f), 'utf8').includes('source: "timer"')).map((f) => f.slice(0, -5)) : [];
  return { admitted: ids(join(home, 'agents/main/events')), queued: ids(join(home, 'agents/main/inbox')) };
}

const runsOf = (home: string, event: string) => runRecords(home).filter((r) => r.wakes.some((w: any) => w.event === event));

describe('a timer fire survives the death of the watcher', () => {
  it('a watcher SIGKILLed while unwaited timers (timer add --work) fire: every fire leads to exactly one run', async () => {
    const p = await project();
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\nholon progress "$HOLON_WORK_ITEM" "ran for $HOLON_WAKE" > /dev/null\n');
    setRunner(p.home, 'main', '{preset: command, command: ./agent.sh}');
    const id = await p.create('check the client upgrades');

    // Killed at the admission of the fire's event: the fire is on disk, its run never started.
    for (let round = 0; round < 3; round++) {
      expect((await p.h(['timer', 'add', '--in', '1s', '--work', id, '--summary', `one-shot ${round}`])).code).toBe(0);
      const w = startWatch(p.dir, [], { HOLON_TEST_KILL_AT: 'admission' });
      expect(await w.exited).toBe(null);
    }
    // Killed at whatever moment follows a fire of a repeating timer.
    const add = await p.json(['timer', 'add', '--in', '1s', '--every', '1s', '--work', id, '--summary', 'repeating']);
    const repeating = add.id ?? add.timer?.id;
    expect(repeating).toMatch(/^t-/);
    for (let round = 0; round < 4; round++) {
      const before = fireEvents(p.home).admitted.length;
      const w = startWatch(p.dir);
      await until(() => fireEvents(p.home).admitted.length > before, 30_000, 'a fire');
      w.child.kill('SIGKILL');
      await w.exited;
    }
    expect((await p.h(['timer', 'cancel', repeating])).code).toBe(0);

    const w = startWatch(p.dir);
    await until(() => {
      const f = fireEvents(p.home);
      // An interrupted run does not count: the restart resumes it, and that run is the one to wait for.
      return !f.queued.length && f.admitted.every((e) => runsOf(p.home, e).some((r) => r.status !== 'interrupted')) && runRecords(p.home).every((r) => r.status !== 'running');
    }, 60_000, 'a run for every fire');
    expect(await w.stop()).toBe(0);
    const fires = fireEvents(p.home).admitted;
    // The three one-shots and at least one repeat; a kill between two fires of the repeat collapses them.
    expect(fires.length).toBeGreaterThanOrEqual(4);
    const timers = (await p.json(['timer', 'list', '--all'])).timers;
    expect(timers.filter((t: any) => t.status === 'fired')).toHaveLength(3);
    // A kill during a run leaves it interrupted, and the restart resumes it once (SPEC 6): the fire is
    // handled by exactly one run that was not cut short.
    for (const e of fires) expect(runsOf(p.home, e).filter((r) => r.status !== 'interrupted'), `runs for ${e}`).toHaveLength(1);
  }, 180_000);
});
