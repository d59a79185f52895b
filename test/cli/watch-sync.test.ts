import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clones } from '../helpers/clones.js';
import { script, setRunner, startWatch, until, type WatchProc } from '../helpers/watch.js';

describe('holon watch --sync: one watcher per agent across clones', () => {
  it('two watchers on two clones never run the agent at once; the second takes over when the first is killed', async () => {
    const c = await clones(2);
    const runsLog = join(c.base, 'runs.log');
    // The agent records when it starts and ends (in a file outside both clones), then completes the item.
    const agent = script(join(c.base, 'agent.sh'), `#!/bin/sh
cat >/dev/null
echo "start $CLONE $(date +%s%N)" >> ${runsLog}
sleep 1
holon complete "$HOLON_WORK_ITEM" --result "done on $CLONE" --evidence "ran on $CLONE" --no-followup "test item" >/dev/null 2>&1
echo "end $CLONE $(date +%s%N)" >> ${runsLog}
`);
    await c.must(0, ['complete', c.id, '--result', 'setup', '--evidence', 'setup', '--no-followup', 'setup']);
    setRunner(join(c.dirs[0], '.holon'), 'main', `{preset: command, command: "${agent}"}`);
    await c.must(0, ['sync']);
    await c.must(1, ['sync']);
    const watchers: WatchProc[] = [0, 1].map((i) => startWatch(c.dirs[i], ['--sync', '1s'], { CLONE: `c${i}` }));
    try {
      // The one that logs that another watcher serves main is the other one.
      const other = await Promise.race(watchers.map((w, i) => w.waitFor(/main is served by/, 60_000).then(() => i)));
      const first = 1 - other;
      await watchers[first].waitFor(/serving main/, 60_000);
      // New work arrives on the clone whose watcher does not serve the agent: the serving one runs it.
      // A manual sync beside that clone's own watcher syncing every second: the clone's sync lock keeps
      // the two from colliding in git (without it a merge in progress failed this in 3 of 10 CI runs).
      const a = (await c.must(other, ['new', 'first job'])).trim();
      await c.must(other, ['sync']);
      await until(() => existsSync(runsLog) && /^end /m.test(readFileSync(runsLog, 'utf8')), 60_000, 'the first run');
      expect(readFileSync(runsLog, 'utf8')).toMatch(new RegExp(`^start c${first} `, 'm'));
      await until(async () => (await c.h(other, ['show', a, '--json'])).stdout.includes('"status": "done"'), 60_000, 'the first job done, seen on the other clone');
      // Killed: its lease runs out (10 s) and the other watcher takes the agent over.
      watchers[first].child.kill('SIGKILL');
      await watchers[first].exited;
      await watchers[other].waitFor(/serving main/, 60_000);
      const b = (await c.must(other, ['new', 'second job'])).trim();
      await until(() => readFileSync(runsLog, 'utf8').match(/^end /gm)?.length === 2, 60_000, 'the second run');
      const lines = readFileSync(runsLog, 'utf8').trim().split('\n').map((l) => l.split(' '));
      expect(lines.map((l) => `${l[0]} ${l[1]}`)).toEqual([`start c${first}`, `end c${first}`, `start c${other}`, `end c${other}`]);
      expect(Number(lines[2][2])).toBeGreaterThan(Number(lines[1][2]));
      expect((await c.show(other, b)).status).toBe('done');
      appendFileSync(runsLog, '');
    } finally {
      await Promise.all(watchers.map((w) => w.stop()));
    }
    // Two clones, two watchers, a 10 s lease to run out: generous on a shared machine.
  }, 180_000);
});
