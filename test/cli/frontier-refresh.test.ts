import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { graphProject } from '../helpers/graph.js';
import { startKeeper, startWatch, until } from '../helpers/watch.js';

/**
 * An index keeper computes each agent's default frontier answer again after its work files change
 * (runtime/frontier-refresh.ts): the next command reuses it as it stands, and it is the answer a full
 * evaluation gives.
 */

const NOW = '2026-11-30T06:00:00Z';

describe('the index keeper refreshes the frontier answers', () => {
  it('after a status change, the next frontier and pick reuse its answer, which is a full evaluation\'s', async () => {
    const { p, work } = await graphProject(120);
    const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1', HOLON_INDEX_WAIT_MS: '60000' };
    const keeper = startKeeper(p.dir, { ...env, HOLON_INDEX_REFRESH: '1' });
    await keeper.ready();
    // Its first answers, made once it keeps the index; then once more past the racy window.
    const refreshed = (from: number) => until(() => keeper.log().slice(from).includes('frontier answers refreshed (past the racy window)'), 60_000, `a refresh; log:\n${keeper.log()}`);
    await refreshed(0);
    const local = join(p.home, 'local');
    const full = async () => {
      renameSync(local, `${local}.kept`);
      try {
        const r = await p.h(['frontier', '--json'], { HOLON_NOW: NOW });
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout);
      } finally {
        rmSync(local, { recursive: true, force: true });
        renameSync(`${local}.kept`, local);
      }
    };

    const first = await p.h(['frontier', '--json'], env);
    expect(first.stderr).toMatch(/frontier: reused \(no file changed\)/);
    const top = JSON.parse(first.stdout).runnable[0].id as string;

    // Done by hand: a status change, which a command would patch into the answer (store/frontier-patch.ts)
    // or evaluate. The keeper does it first.
    const from = keeper.log().length;
    const f = join(work, `${top}.md`);
    writeFileSync(f, readFileSync(f, 'utf8').replace('status: "open"', 'status: "done"'));
    // (Computed in a child `holon frontier --json`, whose trace is not the keeper's: the next command
    // finding the answer as it must be, with no evaluation of its own, is what shows it.)
    await refreshed(from);
    const after = await p.h(['frontier', '--json'], env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toMatch(/frontier: reused \(no file changed\)/);
    expect(after.stderr).not.toMatch(/frontier: evaluated/);
    const answer = JSON.parse(after.stdout);
    expect(answer.runnable.map((e: { id: string }) => e.id)).not.toContain(top);
    expect(answer).toEqual(await full());

    // So does the view a person sees, cut from it by the keeper's refresh.
    const look = await p.h(['frontier'], env);
    expect(look.code, look.stderr).toBe(0);
    expect(look.stderr).toMatch(/frontier: reused \(no file changed\)/);
    expect(look.stderr).not.toMatch(/frontier: (evaluated|patched|cut)/);

    // pick reads the same answer, and claims its top.
    const pick = await p.h(['pick', '--json'], env);
    expect(pick.code, pick.stderr).toBe(0);
    expect(pick.stderr).toMatch(/frontier: reused \(no file changed\)/);
    expect(JSON.parse(pick.stdout).focus).toBe(answer.runnable[0].id);
    await keeper.stop();
  }, 120_000);

  it('holon watch does it too (its index keeper), and turns it off with HOLON_INDEX_REFRESH=0', async () => {
    const p = await project();
    const id = await p.create('Parked work');
    expect((await p.h(['block', id, '--reason', 'parked', '--recovery', 'a person unparks it'])).code).toBe(0);
    const env = { HOLON_TRACE_INDEX: '1' };
    for (const refresh of ['1', '0']) {
      const w = startWatch(p.dir, [], { ...env, HOLON_INDEX_REFRESH: refresh });
      await w.waitFor(/watching /);
      await w.waitFor(/index keeper: keeping the work index/);
      // Its first refresh (at start) is over, racy window and all, before the edit: a refresh line after
      // `from` is then the edit's own, never the tail of that one.
      if (refresh === '1') await w.waitFor(/frontier answers refreshed \(past the racy window\)/);
      const from = w.log().length;
      expect((await p.h(['edit', id, '--priority', refresh === '1' ? 'P1' : 'P2'])).code).toBe(0);
      if (refresh === '1') {
        await until(() => w.log().slice(from).includes('frontier answers refreshed (past the racy window)'), 60_000, `a refresh; log:\n${w.log()}`);
        const f = await p.h(['frontier', '--json'], env);
        expect(f.stderr).toMatch(/frontier: reused \(no file changed\)/);
        expect(JSON.parse(f.stdout).not_runnable[0].priority).toBe('P1');
      } else {
        // The same wait (one racy window and a margin) without a refresh: the command does the work.
        await new Promise((r) => setTimeout(r, 2500));
        expect(w.log().slice(from)).not.toMatch(/frontier answers refreshed/);
        expect((await p.h(['frontier', '--json'], env)).stderr).not.toMatch(/no file changed/);
      }
      expect(await w.stop()).toBe(0);
    }
  }, 120_000);
});
