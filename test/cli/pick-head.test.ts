import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holon, project, tempDir } from '../helpers/cli.js';
import { prng } from '../helpers/fuzz-home.js';
import { graphProject } from '../helpers/graph.js';
import { startKeeper } from '../helpers/watch.js';
import { markRefreshFailed } from '../../src/store/index-keeper-files.js';

/**
 * A pick right after a change that an index keeper reported and will compute the answer again for
 * (ops/frontier-patched.ts leftToKeeper) reads the top of runnable as a verdict patch would leave it
 * (store/frontier-patch-head.ts) and stores nothing. Each such pick must claim what a full evaluation
 * (a copy of the home with no local/, no keeper) puts first at that moment, and leave the cached
 * answer and the snapshot as they were. The keeper here refreshes only after ten minutes of quiet
 * (HOLON_INDEX_REFRESH_SETTLE_MS), so every pick comes before its refresh, and the changes pile up.
 */

const NOW = '2026-11-30T06:00:00Z';
const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1', HOLON_INDEX_WAIT_MS: '60000' };
const LATE = { HOLON_INDEX_REFRESH: '1', HOLON_INDEX_REFRESH_SETTLE_MS: '600000' };

const keepers: Array<{ stop: () => Promise<unknown> }> = [];
afterEach(async () => {
  for (const k of keepers.splice(0)) await k.stop();
});

/** A full evaluation of a copy of the project (no local/, no keeper), every entry listed. */
async function fullAnswer(dir: string, extra: NodeJS.ProcessEnv = {}) {
  const copy = tempDir('holon-full-');
  cpSync(dir, copy, { recursive: true, filter: (src) => !src.endsWith('/.holon/local') });
  const r = await holon(['frontier', '--json', '--all'], { cwd: copy, env: { HOLON_NOW: NOW, HOLON_INDEX: '0', ...extra } });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** The runnable ids of a full evaluation. */
const fullRunnable = async (dir: string, extra: NodeJS.ProcessEnv = {}): Promise<string[]> => (await fullAnswer(dir, extra)).runnable.map((e: { id: string }) => e.id);

/** What `holon frontier` (10 a channel) prints for a copy of the project with no local/ and no keeper. */
async function fullLook(dir: string): Promise<string> {
  const copy = tempDir('holon-full-');
  cpSync(dir, copy, { recursive: true, filter: (src) => !src.endsWith('/.holon/local') });
  const r = await holon(['frontier'], { cwd: copy, env: { HOLON_NOW: NOW, HOLON_INDEX: '0' } });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

/** Every cache file but the graph cache's log (appended to by any reader that parses a changed file), by name. */
function cacheFiles(home: string): Record<string, string> {
  const cache = join(home, 'local/cache');
  return Object.fromEntries(readdirSync(cache).filter((f) => !f.endsWith('.log')).map((f) => [f, readFileSync(join(cache, f)).toString('base64')]));
}

/** What a pick must leave as it was: the default answer's header and text, and the snapshot. */
function stored(home: string): string {
  const cache = join(home, 'local/cache');
  return ['frontier-main-all.json', 'graph-main.idx'].map((f) => `${f} ${readFileSync(join(cache, f)).toString('base64')}`).join('\n');
}

describe('a pick before the index keeper refreshes the answer', () => {
  it('claims the top of a full evaluation after each change, and stores nothing', async () => {
    const { p, work, ids } = await graphProject(160);
    const keeper = startKeeper(p.dir, { ...env, ...LATE });
    keepers.push(keeper);
    await keeper.ready();
    expect(JSON.parse((await p.h(['index', '--status', '--json'])).stdout).keeper.refresh_cwd).toBe(p.dir);
    // The answer made once (the keeper's own refresh is ten minutes away).
    expect((await p.h(['frontier', '--json'], env)).code).toBe(0);
    const first = await p.h(['pick', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/frontier: reused/);
    // The answer stored now, after that claim: every pick below patches from it, the changes piling up.
    expect((await p.h(['frontier', '--json'], env)).code).toBe(0);

    const file = (id: string) => join(work, `${id}.md`);
    const edit = (id: string, from: string, to: string) => writeFileSync(file(id), readFileSync(file(id), 'utf8').replace(from, to));
    const complete = async () => {
      expect((await p.h(['complete', '--result', 'r', '--evidence', 'e', '--no-followup', 'n'], env)).code).toBe(0);
    };
    let blocked = '';
    // Each step may say which item must then come first (a new entry put in before the old ones).
    const steps: Array<[string, () => Promise<string | void>]> = [
      ['a complete', complete],
      ['a complete, and the next top blocked', async () => {
        await complete();
        blocked = (await fullRunnable(p.dir))[0];
        expect((await p.h(['block', blocked, '--reason', 'r', '--recovery', 'a person'], env)).code).toBe(0);
      }],
      ['a complete, and a P1 dependent made P0 and older by hand, its dependency done by hand', async () => {
        await complete();
        // writeGraph: item i depends on item i - 1 when i % 5 is 1. One whose dependency is open, and
        // neither of them a gate, a decision, a peer's claim, deferred or on a branch (patched, never special).
        const plain = (i: number) => i % 4 !== 0 && i % 40 !== 7 && i % 17 !== 3 && i % 13 !== 5 && i % 19 !== 2 && i % 23 !== 4;
        const i = ids.findIndex((_, i) => i % 5 === 1 && plain(i) && plain(i - 1) && ids[i - 1] !== blocked);
        expect(i).toBeGreaterThan(0);
        edit(ids[i], 'priority: "P1"', 'priority: "P0"');
        edit(ids[i], 'created_at: "2026-11-01', 'created_at: "2026-10-01');
        edit(ids[i - 1], 'status: "open"', 'status: "done"');
        return ids[i];
      }],
      ['the blocked item reopened: a P0 back at the top', async () => {
        await complete();
        expect((await p.h(['reopen', blocked], env)).code).toBe(0);
        return blocked;
      }],
      ['the top item done by hand', async () => {
        await complete();
        edit((await fullRunnable(p.dir))[0], 'status: "open"', 'status: "done"');
      }],
    ];
    for (const [what, step] of steps) {
      const top = await step();
      const want = await fullRunnable(p.dir);
      if (top) expect(want[0], what).toBe(top);
      const was = stored(p.home);
      const r = await p.h(['pick', '--json'], env);
      expect(r.code, `${what}: ${r.stderr}`).toBe(0);
      expect(r.stderr, what).toMatch(/frontier: top of runnable patched \(\d+ items? evaluated again\); the index keeper stores the answer/);
      expect(JSON.parse(r.stdout).focus, what).toBe(want[0]);
      expect(stored(p.home), what).toBe(was);
      // Only the numbers of the files it read again, and of the entries it moved (store/stat-index.ts).
      expect(r.stderr, what).not.toMatch(/numbers read whole|names decoded/);
    }
    // A look (what a person sees, 10 a channel) patches the answer whole, cuts its view from it, and
    // stores neither: the keeper's refresh stores both.
    await complete();
    const was = cacheFiles(p.home);
    const look = await p.h(['frontier'], env);
    expect(look.code, look.stderr).toBe(0);
    expect(look.stderr).toMatch(/frontier: patched \(\d+ items? evaluated again\); the index keeper stores the answer/);
    expect(look.stderr).toMatch(/frontier: cut to 10 a channel from the default answer/);
    expect(look.stdout).toBe(await fullLook(p.dir));
    expect(cacheFiles(p.home)).toEqual(was);
    expect(look.stderr).not.toMatch(/numbers read whole|names decoded/);
    // Any other reader of the answer (a script's frontier --json) patches it whole, and stores it.
    const want = await fullAnswer(p.dir);
    for (const args of [['frontier', '--json'], ['frontier', '--json', '--all']]) {
      const r = await p.h(args, env);
      expect(r.stderr, args.join(' ')).not.toMatch(/top of runnable/);
      expect(r.stderr, args.join(' ')).toMatch(/frontier: (patched|evaluated|reused)/);
      expect(JSON.parse(r.stdout).runnable, args.join(' ')).toEqual(want.runnable);
    }
  }, 240_000);

  it('claims the top of a full evaluation after random changes, piled up until the patch gives up', async () => {
    const { p, work, ids } = await graphProject(140);
    const rnd = prng(Number(process.env.PICK_SEED ?? 7));
    const keeper = startKeeper(p.dir, { ...env, ...LATE });
    keepers.push(keeper);
    await keeper.ready();
    expect((await p.h(['frontier', '--json'], env)).code).toBe(0);
    const file = (id: string) => join(work, `${id}.md`);
    const text = (id: string) => readFileSync(file(id), 'utf8');
    const withStatus = (s: string) => ids.filter((id) => text(id).includes(`status: "${s}"`));
    const log: string[] = [];
    const ops: Array<() => Promise<unknown> | void> = [
      () => p.h(['complete', '--result', 'r', '--evidence', 'e', '--no-followup', 'n'], env),
      () => { const id = rnd.one(withStatus('open')); if (id) return p.h(['block', id, '--reason', 'r', '--recovery', 'a person'], env); },
      () => { const id = rnd.one(withStatus('blocked')); if (id) return p.h(['reopen', id], env); },
      () => { const id = rnd.one(withStatus('open')); if (id) writeFileSync(file(id), text(id).replace(/priority: "P\d"/, `priority: "P${rnd.int(5)}"`)); },
      () => { const id = rnd.one(withStatus('open')); if (id) writeFileSync(file(id), text(id).replace('status: "open"', 'status: "done"')); },
      () => { const id = rnd.one(withStatus('done')); if (id) writeFileSync(file(id), text(id).replace('status: "done"', 'status: "open"')); },
    ];
    const seen: Record<string, number> = {};
    for (let step = 0; step < 24; step++) {
      for (let k = 1 + rnd.int(2); k > 0; k--) {
        const op = rnd.int(ops.length);
        log.push(`op ${op}`);
        await ops[op]();
      }
      const want = await fullRunnable(p.dir);
      const r = await p.h(['pick', '--json'], env);
      const how = /frontier: (top of runnable patched|patched|reused[^\n]*|evaluated|not patched)/.exec(r.stderr)?.[1] ?? 'other';
      seen[how] = (seen[how] ?? 0) + 1;
      log.push(`pick: ${how}`);
      if (!want.length) continue;
      expect(r.code, `${log.join('\n')}\n${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).focus, `${log.join('\n')}\n${r.stderr}`).toBe(want[0]);
    }
    console.log('pick paths:', JSON.stringify(seen));
    expect(seen['top of runnable patched']).toBeGreaterThan(8);
  }, 300_000);

  it('stores the patched answer itself when the keeper will not refresh it for this pick', async () => {
    const { p } = await graphProject(60);
    const complete = async (e: NodeJS.ProcessEnv = env) => expect((await p.h(['complete', '--result', 'r', '--evidence', 'e', '--no-followup', 'n'], e)).code).toBe(0);
    const patched = /frontier: patched \(\d+ items? evaluated again\)/;
    const sub = join(p.dir, 'sub');
    mkdirSync(sub);
    for (const [what, keeperEnv, pickEnv, cwd] of [
      ['no refresh (HOLON_INDEX_REFRESH=0)', { HOLON_INDEX_REFRESH: '0' }, env, p.dir],
      ['another holder', LATE, { ...env, HOLON_ACTOR: 'agent:other' }, p.dir],
      ['another folder', LATE, env, sub],
      ['a refresh that failed last time', LATE, env, p.dir],
    ] as const) {
      const keeper = startKeeper(p.dir, { ...env, ...keeperEnv });
      keepers.push(keeper);
      await keeper.ready();
      // (As the keeper's host marks it: test/store/refresh-failed.test.ts.)
      if (what === 'a refresh that failed last time') markRefreshFailed(join(p.home, 'local'), true);
      expect((await holon(['pick'], { cwd, env: pickEnv })).code).toBe(0);
      expect((await holon(['frontier', '--json'], { cwd, env: pickEnv })).code).toBe(0);
      await complete();
      const answer = join(p.home, 'local/cache/frontier-main-all.json');
      // (By content, not mtime: a header names a new random token at each store, and two stores can share a tick.)
      const before = readFileSync(answer, 'utf8');
      const r = await holon(['pick', '--json'], { cwd, env: pickEnv });
      expect(r.code, `${what}: ${r.stderr}`).toBe(0);
      expect(r.stderr, what).toMatch(patched);
      expect(r.stderr, what).not.toMatch(/top of runnable/);
      expect(readFileSync(answer, 'utf8'), what).not.toBe(before);
      expect(JSON.parse(r.stdout).focus, what).toBe((await fullRunnable(p.dir, pickEnv.HOLON_ACTOR ? { HOLON_ACTOR: pickEnv.HOLON_ACTOR } : {}))[0]);
      await keepers.pop()!.stop();
    }
  }, 240_000);

  it('says why nothing is runnable, from the whole answer patched, when the top is gone', async () => {
    const p = await project();
    const a = await p.create('The only runnable one');
    const b = await p.create('Parked');
    expect((await p.h(['block', b, '--reason', 'parked', '--recovery', 'a person unparks it'], env)).code).toBe(0);
    const keeper = startKeeper(p.dir, { ...env, ...LATE });
    keepers.push(keeper);
    await keeper.ready();
    expect((await p.h(['pick', a], env)).code).toBe(0);
    expect((await p.h(['frontier', '--json'], env)).code).toBe(0);
    expect((await p.h(['complete', '--result', 'r', '--evidence', 'e', '--no-followup', 'n'], env)).code).toBe(0);
    const r = await p.h(['pick'], env);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/top of runnable patched/);
    // The refusal's counts are the whole answer's, patched (not stored either).
    expect(r.stderr).toMatch(/frontier: patched \(\d+ items? evaluated again\); the index keeper stores the answer/);
    expect(r.stderr).toMatch(/nothing is runnable for main \(needs_decision 0, needs_action 0, waiting 0, resume_candidates 0, not_runnable 1\)/);
  }, 120_000);
});
