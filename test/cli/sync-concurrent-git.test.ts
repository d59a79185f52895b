import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { clones } from '../helpers/clones.js';

describe('holon sync beside other git processes in the same clone', () => {
  it('reads what it fetched from a ref of its own (FETCH_HEAD is rewritten by every fetch) and retries a ref another git process is moving', async () => {
    const c = await clones(2);
    // Clone 1 keeps moving the remote; in clone 0 a loop of fetches (a watcher's --sync round, an IDE's
    // background fetch) keeps updating refs/remotes/origin/main while holon sync fetches there too.
    const loop = (dir: string, script: string) => spawn('sh', ['-c', script], { cwd: dir, stdio: 'ignore', detached: true });
    // Each loop in its own process group, so the git it is running stops with it.
    const stop = (p: ReturnType<typeof loop>) => new Promise<void>((res) => {
      p.once('exit', () => res());
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        res();
      }
    });
    // A short pause a turn: the loops still move the ref many times a second, without taking both cores
    // from the tests running beside this one.
    const mover = loop(c.dirs[1], `i=0; while :; do i=$((i+1)); echo "$i" > f.txt; git add f.txt; git -c user.email=m@x -c user.name=m commit -qm "move $i"; git push -q origin HEAD:main 2>/dev/null || git pull -q --rebase origin main 2>/dev/null; sleep 0.05; done`);
    const fetcher = loop(c.dirs[0], 'while :; do git fetch -q origin main 2>/dev/null; sleep 0.05; done');
    try {
      for (let n = 0; n < 8; n++) {
        await c.must(0, ['progress', c.id, `note ${n}`]);
        const r = await c.h(0, ['sync', '--json']);
        expect(r.stderr, `sync ${n}`).not.toMatch(/cannot lock ref|nothing to commit/);
        // Exit 5 (the remote kept moving past every retry) is honest; a fetch that fails is not.
        expect([0, 5], `sync ${n}: ${r.stderr}`).toContain(r.code);
      }
    } finally {
      await Promise.all([stop(mover), stop(fetcher)]);
    }
    // A bound, not a timing: 8 syncs beside two loops of git took 75 s on a 2-core machine running
    // slow (node -e 0 at 60 ms of cpu), and 131 s there with other tests beside it.
  }, 300_000);
});
