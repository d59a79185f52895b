import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graphProject } from '../helpers/graph.js';
import { cleanEnv, project } from '../helpers/cli.js';
import { HolonError } from '../../src/core/errors.js';
import { makeOpsCtx } from '../../src/ops/context.js';
import { frontierParts, partsText } from '../../src/ops/frontier.js';
import { claimNext, nothingClaimed } from '../../src/ops/pick.js';

/**
 * `holon pick` with no id claims the first item of the frontier's runnable channel, read from the
 * frontier's cached answer when nothing changed (ops/pick.ts): each pick must claim what a full
 * evaluation (local/ moved aside: no cache at all) puts first at that moment.
 */

const NOW = '2026-11-30T06:00:00Z';

describe('pick with no id', () => {
  it('claims the top of a full evaluation, from the cached answer when nothing changed', async () => {
    const { p, work } = await graphProject(120);
    const env = (now = NOW) => ({ HOLON_NOW: now, HOLON_TRACE_INDEX: '1' });
    const local = join(p.home, 'local');
    /** The runnable ids of a full evaluation, in order; the caches under local/ are kept as they were. */
    const full = async (now = NOW): Promise<string[]> => {
      renameSync(local, `${local}.kept`);
      try {
        const r = await p.h(['frontier', '--json'], { HOLON_NOW: now });
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout).runnable.map((e: { id: string }) => e.id);
      } finally {
        rmSync(local, { recursive: true, force: true });
        renameSync(`${local}.kept`, local);
      }
    };
    const pick = async (now = NOW, ...more: string[]) => {
      const r = await p.h(['pick', '--json', ...more], env(now));
      expect(r.code, r.stderr).toBe(0);
      return { id: JSON.parse(r.stdout).focus as string, claim: JSON.parse(r.stdout).claim, trace: r.stderr };
    };

    expect((await p.h(['frontier', '--json'], env())).code).toBe(0);
    const before = await full();
    expect(before.length).toBeGreaterThan(3);

    // A hand edit of the top item after the answer was cached: the pick must see it.
    const top = join(work, `${before[0]}.md`);
    writeFileSync(top, readFileSync(top, 'utf8').replace('revision: 1', 'revision: 1\nexclude: ["main"]'));
    const next = (await full())[0];
    expect(next).toBe(before[1]);
    const first = await pick();
    expect(first.id).toBe(next);
    expect(first.claim.holder).toBe('agent:main');

    // Its own claim keeps it first; once that write is evaluated, a pick with nothing changed reads
    // the cached answer, and claims the same.
    expect((await full())[0]).toBe(next);
    await pick();
    const again = await pick();
    expect(again.id).toBe(next);
    expect(again.trace).toMatch(/frontier: reused/);
    expect(again.trace).not.toMatch(/frontier: evaluated/);

    // Done by hand: the next pick takes what a full evaluation now puts first.
    const f = join(work, `${next}.md`);
    writeFileSync(f, readFileSync(f, 'utf8').replace('status: "open"', 'status: "done"'));
    const after = (await full())[0];
    expect(after).not.toBe(next);
    expect((await pick()).id).toBe(after);

    // A lease that ends: the cached answer shows the leased item first (own claims first) only until
    // then. Past its end, that answer is not used, and the pick takes what comes first without it.
    expect((await p.h(['release', after], env())).code).toBe(0);
    const open = await full();
    const leased = open[open.length - 1];
    expect((await p.h(['claim', leased, '--ttl', '10m'], env())).code).toBe(0);
    expect((await full())[0]).toBe(leased);
    const cached = await p.h(['frontier', '--json'], env());
    expect(JSON.parse(cached.stdout).runnable[0].id).toBe(leased);
    const later = '2026-11-30T06:20:00Z';
    const expected = (await full(later))[0];
    expect(expected).not.toBe(leased);
    const late = await pick(later);
    expect(late.id).toBe(expected);
    expect(late.trace).toMatch(/frontier: evaluated/);
  }, 120_000);

  it('reads only the start of a big cached answer, and the whole of it to patch it', async () => {
    // Some 1,500 runnable entries: an answer of far more than the 32 KB a pick reads of it.
    const { p } = await graphProject(3000);
    // No keeper of its own (a home this big would start one), whose refresh could come first.
    const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1', HOLON_INDEX_AUTO: '0' };
    const local = join(p.home, 'local');
    const top = async () => {
      renameSync(local, `${local}.kept`);
      try {
        const r = await p.h(['frontier', '--json'], { HOLON_NOW: NOW, HOLON_INDEX_AUTO: '0' });
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout).runnable[0].id as string;
      } finally {
        rmSync(local, { recursive: true, force: true });
        renameSync(`${local}.kept`, local);
      }
    };
    const answer = await p.h(['frontier', '--json'], env);
    expect(answer.stdout.length).toBeGreaterThan(300_000);
    const pick = async () => {
      const r = await p.h(['pick', '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      return { id: JSON.parse(r.stdout).focus as string, trace: r.stderr };
    };
    for (let round = 0; round < 2; round++) {
      // Reused as it is (its own claim keeps the item first)...
      const want = await top();
      expect((await pick()).id).toBe(want);
      // (The claim it wrote is patched in by the next.)
      expect((await pick()).id).toBe(want);
      const again = await pick();
      expect(again.id).toBe(want);
      expect(again.trace).toMatch(/frontier: reused/);
      // Reused by its file keys, or (a file changed within the last 2 s) by its digest and titles:
      // either way only the start of the answer is read.
      expect(again.trace).toMatch(/frontier: the answer's first 32768 bytes read/);
      // ... and patched after a complete, from the whole answer read again.
      expect((await p.h(['complete', want, '--result', 'r', '--evidence', 'e', '--no-followup', 'none'], env)).code).toBe(0);
      const next = await top();
      const after = await pick();
      expect(after.trace).toMatch(/frontier: patched/);
      expect(after.id).toBe(next);
      expect((await p.h(['frontier', '--json'], env)).stdout.length).toBeGreaterThan(300_000);
    }
  }, 120_000);

  it('refuses with what a person must decide, not a conflict, when the answer it read the start of is replaced', async () => {
    const p = await project();
    const work = join(p.home, 'agents/main/work');
    // Gates alone: nothing runnable, and needs_decision (never cut) makes an answer past the 32 KB a pick reads.
    for (let i = 0; i < 150; i++) {
      const id = `w-gate${String(i).padStart(4, '0')}`;
      writeFileSync(join(work, `${id}.md`), `---\nid: "${id}"\ntitle: "decide ${i}"\nagent: "main"\nstatus: "open"\nclass: "user_gate"\ndecision_scope:\n  scope: "api:action:k${i}"\npriority: "P1"\ncreated_at: "2026-11-01T00:00:00Z"\nrevision: 1\n---\n\n## Objective\n\ndecide ${i}\n`);
    }
    // In this process throughout: an answer is stored for the code that made it (its build), so the
    // CLI's would not be reused here.
    const ctx = () => makeOpsCtx({}, { ...cleanEnv(), HOLON_NOW: NOW, HOLON_AGENT: 'main', HOLON_INDEX_AUTO: '0' }, p.dir);
    expect(partsText(await frontierParts(ctx(), {})).length).toBeGreaterThan(40_000);
    const r = await claimNext(ctx(), {}, 'main', 'agent:main');
    expect(r.ref).toBeNull();
    // Another call stores a new answer before the refusal reads the whole of the one it started from.
    const gate = join(work, 'w-gate0003.md');
    writeFileSync(gate, readFileSync(gate, 'utf8').replace('title: "decide 3"', 'title: "decide 3, now"'));
    await frontierParts(ctx(), {});
    expect(r.whole()).toBeNull();
    const refusal = await nothingClaimed(ctx(), r, 'main').catch((err: unknown) => err as HolonError);
    expect(refusal).toBeInstanceOf(HolonError);
    expect((refusal as HolonError).kind).toBe('invalid');
    expect((refusal as HolonError).message).toMatch(/nothing is runnable for main \(needs_decision 150/);
    expect(String((refusal as HolonError).hint)).toMatch(/w-gate0003 .*"decide 3, now"/);
  }, 60_000);
});
