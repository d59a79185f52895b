import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graphProject } from '../helpers/graph.js';

/**
 * After a change of a few items the default frontier is patched, not evaluated (store/frontier-patch.ts):
 * the changed items and the items reading them are evaluated again, the rest kept. Each step here
 * must print, to the byte, what a full evaluation prints (local/ moved aside: no cache at all), and
 * the trace says which steps were patched and which were evaluated in full (a gate, new dependencies).
 */

const NOW = '2026-11-30T06:00:00Z';
const CHANNELS = ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable'];

describe('the frontier patched after a change', () => {
  it('is the full evaluation after a complete, a pick, a wait, a dependency done, a hand edit, a reopen', async () => {
    const { p, work, ids } = await graphProject(400);
    const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1' };
    const local = join(p.home, 'local');
    const paths: string[] = [];
    /** The default frontier, checked against a full evaluation; returns it and how it was made. */
    const same = async (what: string) => {
      const fast = await p.h(['frontier', '--json'], env);
      expect(fast.code, `${what}: ${fast.stderr}`).toBe(0);
      renameSync(local, `${local}.kept`);
      try {
        const full = await p.h(['frontier', '--json'], { HOLON_NOW: NOW });
        expect(full.code, `${what}: ${full.stderr}`).toBe(0);
        expect(fast.stdout, what).toBe(full.stdout);
      } finally {
        rmSync(local, { recursive: true, force: true });
        renameSync(`${local}.kept`, local);
      }
      const how = /frontier: (patched|reused|evaluated)/.exec(fast.stderr)?.[1] ?? 'unknown';
      paths.push(`${what}: ${how}`);
      return { f: JSON.parse(fast.stdout), how, trace: fast.stderr };
    };
    const ok = async (...args: string[]) => {
      const r = await p.h(args, env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r;
    };
    const file = (id: string) => join(work, `${id}.md`);
    const where = (f: any, id: string) => CHANNELS.find((c) => f[c].some((e: any) => e.id === id)) ?? 'closed or cut';

    const base = await same('first');
    expect(base.how).toBe('evaluated');
    expect(base.f.truncated.not_runnable).toBeGreaterThan(0);

    // The loop of the day: pick the top, complete it, pick the next.
    const top = base.f.runnable[0].id;
    await ok('pick', top);
    expect((await same('pick')).how).not.toBe('evaluated');
    await ok('complete', top, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    const afterComplete = await same('complete');
    expect(afterComplete.how).toBe('patched');
    expect(where(afterComplete.f, top)).toBe('closed or cut');
    await ok('pick');
    const picked = await same('pick without id');
    expect(picked.how).toBe('patched');
    // The answer read where the patch uses it (the first patch after an evaluation found its entries by
    // a search, and recorded them), stored as a delta of the old one (store/answer-delta.ts) and printed
    // from it (store/answer-text.ts).
    expect(picked.trace).toMatch(/frontier: patched \(\d+ items? evaluated again\)\nholon: index: frontier: stored as a delta of an answer stored whole\nholon: index: frontier: the answer's first 16384 bytes read, the rest copied from its file/);
    // A priority lowered where the cap leaves the entry out: reused, the cut updated (frontier-cut.ts).
    // The entry moves within the cut, which must stay in key order: the patches below bring entries
    // left out into view in the cut's order (before the cut was put in order again, the next patch
    // showed this entry in its old place, unlike a full evaluation).
    const leftOut = JSON.parse((await ok('frontier', '--json', '--all')).stdout).not_runnable.slice(50).find((e: any) => e.priority !== 'P4');
    expect(leftOut).toBeTruthy();
    await ok('edit', leftOut.id, '--priority', 'P4');
    const lowered = await same('a priority lowered where it is not shown');
    expect(lowered.trace).toMatch(/frontier: reused \(same digest, a priority changed where it is not shown\)/);

    // A dependency done: its open dependent (every fifth item depends on the one before) becomes runnable.
    // (Found in the whole list: the dependent may be among the entries the cap leaves out.)
    const all = JSON.parse((await ok('frontier', '--json', '--all')).stdout);
    const runnable = new Set(all.runnable.map((e: any) => e.id));
    const held = all.not_runnable.find((e: any) => e.code === 'dependency_open' && runnable.has(/waits for (\S+) \(open\)$/.exec(e.detail)?.[1]));
    expect(held).toBeTruthy();
    const dep = /waits for (\S+) \(open\)$/.exec(held.detail)![1];
    const dependent = held.id;
    await ok('complete', dep, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    const unblocked = await same('a dependency done');
    expect(unblocked.how).toBe('patched');
    expect(where(unblocked.f, dependent)).toBe('runnable');

    // A wait, a reopen of a done item, a block, a defer.
    const second = unblocked.f.runnable[1].id;
    await ok('wait', second, '--for', 'external:ci', '--reason', 'r');
    const waited = await same('wait');
    expect(where(waited.f, second)).toBe('waiting');
    const fourth = waited.f.runnable[0].id;
    await ok('block', fourth, '--reason', 'r', '--recovery', 'x');
    expect((await same('block')).how).toBe('patched');
    await ok('reopen', fourth);
    expect(where((await same('reopen')).f, fourth)).toBe('runnable');
    // Done back to open by hand (no dependencies: nothing could close a cycle).
    writeFileSync(file(top), readFileSync(file(top), 'utf8').replace('status: "done"', 'status: "open"'));
    const undone = await same('done undone by hand');
    expect(undone.how).toBe('patched');
    expect(where(undone.f, top)).toBe('runnable');

    // Many not_runnable entries leave at once: entries left out by the cap come into view. (Items no
    // other item depends on: a reader needing a decision would make it a full evaluation.)
    const shownBlocked = unblocked.f.not_runnable.filter((e: any) => ['claimed_by_other', 'dependency_open'].includes(e.code) && (ids.indexOf(e.id) + 1) % 5 !== 1).slice(0, 5).map((e: any) => e.id);
    expect(shownBlocked.length).toBeGreaterThan(2);
    for (const id of shownBlocked) writeFileSync(file(id), readFileSync(file(id), 'utf8').replace(/claim:\n(  .*\n)+/, '').replace(/depends_on:\n(  .*\n)+/, ''));
    const promoted = await same('claims and dependencies dropped by hand');
    expect(promoted.how, promoted.trace).toBe('patched');
    for (const id of shownBlocked) expect(where(promoted.f, id)).not.toBe('not_runnable');

    // A title and a status in one edit, and a priority that moves an entry.
    const third = promoted.f.runnable[2].id;
    writeFileSync(file(third), readFileSync(file(third), 'utf8').replace(/title: ".*"/, 'title: "renamed"').replace('status: "open"', 'status: "blocked"'));
    const renamed = await same('title and status by hand');
    expect(renamed.f.not_runnable.find((e: any) => e.id === third)?.title ?? 'renamed').toBe('renamed');
    const last = renamed.f.runnable[renamed.f.runnable.length - 1].id;
    await ok('edit', last, '--priority', 'P0');
    await ok('progress', last, 'noted');
    await ok('wait', renamed.f.runnable[0].id, '--for', 'external:x', '--reason', 'r');
    expect((await same('a priority and a wait')).how).toBe('patched');

    // A title patched into the answer keeps its read index: the next status change is patched too.
    const titled = (await same('before a title')).f.runnable[3].id;
    await ok('edit', titled, '--title', 'a new title');
    expect((await same('a new title')).trace).toMatch(/frontier: reused with 1 entry patched/);
    await ok('complete', titled, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    expect((await same('complete after a title')).how).toBe('patched');

    // A title edited by hand that the default answer never took in: another view's call read the file
    // and stored the snapshot, so the next patch finds it unchanged there, and must still show it.
    const before = (await same('before a title it never took in')).f.runnable;
    writeFileSync(file(before[4].id), readFileSync(file(before[4].id), 'utf8').replace(/title: ".*"/, 'title: "seen elsewhere"'));
    await ok('frontier', '--json', '--limit', '60');
    await ok('complete', before[0].id, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    const elsewhere = await same('a title another view took in');
    expect(elsewhere.how).toBe('patched');
    expect(elsewhere.f.runnable.find((e: any) => e.id === before[4].id).title).toBe('seen elsewhere');

    // A gate decided, new dependencies: evaluated in full (and the same).
    const gate = ids[7];
    await ok('decide', gate, '--approve');
    expect((await same('a gate decided')).how).toBe('evaluated');
    const free = (await same('unchanged')).f.runnable;
    await ok('edit', free[0].id, '--add-depends-on', free[1].id);
    expect((await same('a new dependency')).how).toBe('evaluated');
    await ok('complete', free[1].id, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    const done = await same('its dependency done');
    expect(done.how, done.trace).toBe('patched');

    // A status edited by hand that another view's call (one not cut from the default answer, of more
    // than 50 a channel) read and stored in the snapshot: the snapshot
    // hides it from the files this call finds changed, so the answer is evaluated, not patched from it.
    const blocked = done.f.runnable[3].id;
    writeFileSync(file(blocked), readFileSync(file(blocked), 'utf8').replace('status: "open"', 'status: "blocked"'));
    await ok('frontier', '--json', '--limit', '60');
    await ok('complete', done.f.runnable[0].id, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    const hidden = await same('a status another view took in');
    expect(hidden.trace).toMatch(/not patched \(the snapshot is not the one the answer was made on\)/);
    expect(where(hidden.f, blocked)).toBe('not_runnable');
    expect(paths.filter((x) => x.endsWith('patched')).length).toBeGreaterThan(8);
  }, 180_000);

  it('a view cut from a default answer reused as stored says this call\'s time, not the one the answer was made at', async () => {
    // Found by frontier-fuzz.test.ts (FUZZ_SEEDS=30 FUZZ_N=300 FUZZ_CC=1): the cut was made from the
    // stored text, whose `now` is the time of the call that made it.
    const { p, ids } = await graphProject(120);
    const at = (now: string) => ({ HOLON_NOW: now, HOLON_TRACE_INDEX: '1' });
    expect((await p.h(['frontier', '--json'], at('2026-11-30T06:00:00Z'))).code).toBe(0);
    // A note changes a file and nothing the frontier reads: the default answer is reused as stored.
    expect((await p.h(['progress', ids[1], 'a note'], at('2026-11-30T06:05:00Z'))).code).toBe(0);
    const r = await p.h(['frontier', '--json', '--limit', '3'], at('2026-11-30T06:10:00Z'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/frontier: reused \(same digest, same titles\)/);
    expect(r.stderr).toMatch(/frontier: cut to 3 a channel from the default answer/);
    expect(JSON.parse(r.stdout).now).toBe('2026-11-30T06:10:00Z');
    // And the stored cut, reused later, says that later call's time.
    const again = await p.h(['frontier', '--json', '--limit', '3'], at('2026-11-30T06:12:00Z'));
    expect(JSON.parse(again.stdout).now).toBe('2026-11-30T06:12:00Z');
  });

  it('a view of up to 50 a channel (what a person sees) is cut from the default answer, patched as it is', async () => {
    const { p, work, ids } = await graphProject(400);
    const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1' };
    const local = join(p.home, 'local');
    /** `holon frontier ARGS` as the fast path gives it, checked against a full evaluation of the same view. */
    const same = async (what: string, ...args: string[]) => {
      const fast = await p.h(['frontier', ...args], env);
      expect(fast.code, `${what}: ${fast.stderr}`).toBe(0);
      renameSync(local, `${local}.kept`);
      try {
        const full = await p.h(['frontier', ...args], { HOLON_NOW: NOW });
        expect(full.code, `${what}: ${full.stderr}`).toBe(0);
        expect(fast.stdout, `${what} (${args.join(' ')})`).toBe(full.stdout);
      } finally {
        rmSync(local, { recursive: true, force: true });
        renameSync(`${local}.kept`, local);
      }
      return fast.stderr;
    };
    const ok = async (...args: string[]) => expect((await p.h(args, env)).code).toBe(0);
    const views = [['--json', '--limit', '1'], ['--json', '--limit', '3'], ['--json', '--limit', '50'], []];
    const first = await same('first', '--json');
    expect(first).toMatch(/frontier: evaluated/);
    for (const v of views) expect(await same('cut', ...v)).toMatch(/frontier: cut to \d+ a channel from the default answer/);
    // Reused as stored while nothing changes: by its file keys, or (a file changed within the last 2 s,
    // whose keys vouch for nothing) while the default answer it was cut from is the same.
    expect(await same('again', '--json', '--limit', '3')).toMatch(/frontier: reused \((no file changed|cut from the same default answer)\)/);
    await ok('progress', ids[41], 'a note changes nothing the frontier shows');
    expect(await same('after a progress note', '--json', '--limit', '3')).toMatch(/frontier: reused \((no file changed|cut from the same default answer)\)/);

    // The loop of a person: look, pick, complete, look again. The look after each change patches the
    // default answer, and the pick after it reuses that (it never evaluates the graph again).
    const picked = await p.h(['pick', '--json'], env);
    expect(picked.code, picked.stderr).toBe(0);
    const done = JSON.parse(picked.stdout).focus as string;
    const look = await same('after a pick');
    expect(look).toMatch(/frontier: patched/);
    expect(look).toMatch(/cut to 10 a channel/);
    await ok('complete', done, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    expect(await same('after a complete')).toMatch(/frontier: patched/);
    const pick = await p.h(['pick'], env);
    expect(pick.stderr).not.toMatch(/frontier: evaluated/);
    for (const v of views) await same('after a pick again', ...v);

    // A title edited by hand: the default answer takes it in, and so does every cut.
    const file = (id: string) => join(work, `${id}.md`);
    writeFileSync(file(ids[40]), readFileSync(file(ids[40]), 'utf8').replace(/title: ".*"/, 'title: "renamed by hand"'));
    for (const v of views) await same('a title by hand', ...v);

    // More than the default answer shows of not_runnable (50): evaluated, not cut.
    expect(await same('past the cap', '--json', '--limit', '51')).toMatch(/frontier: evaluated/);
  }, 180_000);

  it('prints the whole patched answer where it cannot be stored: the ranges of the old answer read before its file is let go', async () => {
    const { p, work } = await graphProject(300);
    const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1' };
    const local = join(p.home, 'local');
    const front = async () => {
      const r = await p.h(['frontier', '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      return r;
    };
    const full = async () => {
      renameSync(local, `${local}.kept`);
      try {
        return (await p.h(['frontier', '--json'], { HOLON_NOW: NOW })).stdout;
      } finally {
        rmSync(local, { recursive: true, force: true });
        renameSync(`${local}.kept`, local);
      }
    };
    const file = (id: string) => join(work, `${id}.md`);
    const set = (id: string, field: string, value: string) => writeFileSync(file(id), readFileSync(file(id), 'utf8').replace(new RegExp(`^${field}: .*$`, 'm'), `${field}: ${JSON.stringify(value)}`));
    await front();
    const shown = JSON.parse((await front()).stdout).runnable.map((e: any) => e.id);
    // The first patch after the evaluation finds the entries by a search, and records where they are.
    set(shown[3], 'title', 'first rename');
    expect((await front()).stderr).toMatch(/reused with 1 entry patched/);
    // Nothing can be stored now (local/tmp is a file): every cache write fails.
    const tmp = join(local, 'tmp');
    rmSync(tmp, { recursive: true, force: true });
    writeFileSync(tmp, 'not a folder');
    set(shown[5], 'title', 'second rename');
    const titled = await front();
    // Once: not made again after finding that no file holds what it stored.
    expect(titled.stderr.match(/frontier: reused/g)).toEqual(['frontier: reused']);
    expect(titled.stderr).toMatch(/reused with 1 entry patched/);
    expect(titled.stdout).toBe(await full());
    // A verdict patch too (an item closed by hand).
    set(shown[7], 'status', 'done');
    const closed = await front();
    expect(closed.stderr.match(/frontier: patched/g)).toEqual(['frontier: patched']);
    expect(closed.stdout).toBe(await full());
    expect(readFileSync(tmp, 'utf8')).toBe('not a folder');
  }, 120_000);
});
