import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { expireRechecks } from '../../src/runtime/rechecks.js';
import { openHome } from '../../src/store/home.js';

describe('a recheck deadline two passes reach in the same second', () => {
  it('is reported by the pass that expired it, not by both', async () => {
    const p = await project();
    const id = await p.create('CI', [], { HOLON_NOW: '2026-12-01T10:00:00Z' });
    const wait = (await p.json(['wait', id, '--for', 'external:ci:run/1', '--reason', 'CI', '--recheck', '1m'], { HOLON_NOW: '2026-12-01T10:00:00Z' })).wait.id;
    const home = openHome({ home: p.home, cwd: p.dir, env: {} });
    const now = Date.parse('2026-12-01T10:05:00Z');
    // Both list the wait as active before either takes the item's lock (a watcher's pass and a cron
    // `holon tick`, in one second): the second finds it expired under the lock, with our settled_at.
    const [a, b] = await Promise.all([expireRechecks(home, ['main'], now), expireRechecks(home, ['main'], now)]);
    expect([...a, ...b]).toEqual([{ agent: 'main', work_item: id, wait }]);
    expect((await p.json(['show', id])).waits[0]).toMatchObject({ status: 'expired', settled_reason: 'recheck_deadline', settled_at: '2026-12-01T10:05:00Z' });
  });
});
