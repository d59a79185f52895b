import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { frontierRefresher } from '../../src/runtime/frontier-refresh.js';
import { keeperPaths } from '../../src/store/index-keeper-files.js';
import type { Home } from '../../src/store/home.js';
import { tempDir } from '../helpers/cli.js';
import { until } from '../helpers/watch.js';

/**
 * While a refresh of the answers fails, the keeper's host marks it (local/index/refresh-failed), so that
 * no command leaves its patched answer to a refresh that will not store it (ops/frontier-patched.ts
 * leftToKeeper); the mark goes once every agent's refresh works again.
 */
describe('the refresh of the answers, failing', () => {
  it('marks the home while an agent\'s refresh fails, and clears the mark when it works again', async () => {
    const dir = join(tempDir(), '.holon');
    mkdirSync(join(dir, 'agents/main'), { recursive: true });
    writeFileSync(join(dir, 'agents/main/AGENTS.md'), '---\nname: main\n---\n');
    mkdirSync(join(dir, 'local/index'), { recursive: true });
    const home = { dir, local: join(dir, 'local') } as Home;
    const marker = keeperPaths(home.local).refreshFailed;
    let fail = true;
    let runs = 0;
    const logged: string[] = [];
    const r = frontierRefresher(home, async () => {
      runs++;
      if (fail) throw new Error('no holon here');
    }, (l) => logged.push(l), { HOLON_INDEX_REFRESH_SETTLE_MS: '1' });
    try {
      expect(r.active).toBe(true);
      r.changed();
      await until(() => existsSync(marker), 10_000, 'the mark');
      expect(logged.join('\n')).toMatch(/main's frontier could not be computed: no holon here/);
      fail = false;
      const before = runs;
      r.changed();
      await until(() => runs > before && !existsSync(marker), 10_000, 'the mark cleared');
    } finally {
      r.stop();
    }
  });
});
