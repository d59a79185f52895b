import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ignoredPath } from '../../src/store/home-watcher.js';
import type { Home } from '../../src/store/home.js';

const home = { dir: '/p/.holon', local: '/p/.holon/local' } as Home;
const runs = join(home.local, 'runs');
const pid = join(home.local, 'watch.pid');

describe('ignoredPath', () => {
  const cases: Array<[string, string[], boolean]> = [
    ['/p/.holon/agents/main/work/w-1.md', [], false],
    ['/p/.holon/agents/main/work/w-1.md.lock', [], true],
    ['/p/.holon/local/agent-state.json', [], false],
    ['/p/.holon/local/runs/r-1.log', [], true],
    ['/p/.holon/local/watch.pid', [], true],
    // The dashboard also follows run records, logs and the watcher's pid file...
    ['/p/.holon/local/runs', [runs, pid], false],
    ['/p/.holon/local/runs/r-1.log', [runs, pid], false],
    ['/p/.holon/local/watch.pid', [runs, pid], false],
    // ...but still not locks, temp files or the rest of local/.
    ['/p/.holon/local/runs/sessions.json.lock', [runs, pid], true],
    ['/p/.holon/local/runs-old/x', [runs, pid], true],
    ['/p/.holon/local/tmp/x.tmp', [runs, pid], true],
    ['/p/.holon/local/cache/timers-main.json', [runs, pid], true],
  ];
  for (const [path, also, want] of cases) it(`${path} with [${also.length}] -> ${want ? 'ignored' : 'watched'}`, () => expect(ignoredPath(home, path, also)).toBe(want));
});
