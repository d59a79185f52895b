import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prng } from '../helpers/fuzz-home.js';
import { graphProject } from '../helpers/graph.js';

/**
 * The default view's fast paths (reuse, title and priority patches, verdict patches, the entries the
 * cap leaves out, views cut from the default answer) against a full evaluation after each step of a
 * seeded random run of the day's loop: picks, completes, waits, blocks, reopens, titles and priorities
 * (by holon and by hand, often on the first entries the cap leaves out), statuses, claims and
 * dependencies changed by hand, other views looked at in between. Every answer must be, to the byte,
 * the full evaluation's. frontier-fuzz.test.ts fuzzes every kind of input on smaller homes; this one
 * is a home past the cap (300 items, some 100 not runnable), where patches are most of the calls.
 * Seeds 2 and 4 fail on the cut left out of key order by a priority changed in it (before
 * frontier-cut.ts putInOrder).
 */

const NOW = '2026-11-30T06:00:00Z';
const STEPS = 70;

// LOOP_SEEDS=1-20 runs those seeds instead: for a longer hunt.
const seeds = process.env.LOOP_SEEDS ? (([a, b = a]) => Array.from({ length: b - a + 1 }, (_, i) => a + i))(process.env.LOOP_SEEDS.split('-').map(Number)) : [2, 4];

describe('the frontier fast paths under a random run of changes', () => {
  for (const seed of seeds) {
    it(`give what a full evaluation gives after every step (seed ${seed})`, async () => {
      const { p, work, ids } = await graphProject(300);
      const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1' };
      const local = join(p.home, 'local');
      const rnd = prng(seed);
      const log: string[] = [];
      const how: Record<string, number> = {};
      const file = (id: string) => join(work, `${id}.md`);
      const edit = (id: string, change: (text: string) => string) => writeFileSync(file(id), change(readFileSync(file(id), 'utf8')));

      /** `holon frontier ARGS` by the fast path, to the byte the full evaluation's (local/ moved aside). */
      const same = async (args: string[]) => {
        const fast = await p.h(['frontier', ...args], env);
        expect(fast.code, `${log.join('\n')}\n${fast.stderr}`).toBe(0);
        renameSync(local, `${local}.kept`);
        try {
          const full = await p.h(['frontier', ...args], { HOLON_NOW: NOW });
          expect(fast.stdout, `after:\n${log.join('\n')}\n(frontier ${args.join(' ')})\n${fast.stderr}`).toBe(full.stdout);
        } finally {
          rmSync(local, { recursive: true, force: true });
          renameSync(`${local}.kept`, local);
        }
        const path = /frontier: (patched|reused with|reused|evaluated|cut to)/.exec(fast.stderr)?.[1] ?? 'other';
        how[path] = (how[path] ?? 0) + 1;
        return fast.stdout;
      };
      /** A change by holon: it may be refused (exit 3 to 6: not claimed, a conflict...), never a crash. */
      const run = async (...args: string[]) => {
        log.push(args.join(' '));
        const r = await p.h(args, env);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBeLessThan(7);
        expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      };

      await same(['--json']);
      for (let step = 0; step < STEPS; step++) {
        const all = JSON.parse((await p.h(['frontier', '--json', '--all'], env)).stdout);
        const shown = (c: string) => (all[c] as Array<{ id: string }>).map((e) => e.id);
        const runnable = shown('runnable');
        const blocked = shown('not_runnable');
        const open = ids.filter((id) => !/status: "done"/.test(readFileSync(file(id), 'utf8')));
        const done = ids.filter((id) => !open.includes(id));
        const any = rnd.one([...runnable, ...blocked, ...open]) ?? ids[0];
        switch (rnd.int(14)) {
          case 0: await run('pick'); break;
          case 1: { const id = rnd.one(runnable); if (id) await run('pick', id); break; }
          case 2:
            // The loop of the day: the top picked, then completed (complete with no id: the focus).
            await run('pick');
            await run('complete', '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
            break;
          case 3: { const id = rnd.one(runnable); if (id) await run('wait', id, '--for', `external:fuzz-${step}`, '--reason', 'r'); break; }
          case 4: await run('edit', any, '--priority', `P${rnd.int(5)}`); break;
          case 5: await run('edit', any, '--title', `title ${step}`); break;
          case 6: await run('progress', any, `note ${step}`); break;
          case 7: { const id = rnd.one(runnable); if (id) await run('block', id, '--reason', 'r', '--recovery', 'x'); break; }
          case 8: { const id = rnd.one(done); if (id) await run('reopen', id); break; }
          case 9: {
            // A priority by hand, often on the first entries the cap leaves out (the next to come into view).
            const id = rnd.next() < 0.6 ? rnd.one(blocked.slice(50, 60)) ?? any : any;
            log.push(`by hand: ${id} priority`);
            edit(id, (t) => t.replace(/^priority: .*$/m, `priority: "P${rnd.int(5)}"`));
            break;
          }
          case 10: {
            log.push(`by hand: ${any} title`);
            edit(any, (t) => t.replace(/^title: .*$/m, `title: "by hand ${step}"`));
            break;
          }
          case 11: {
            // A status by hand: done to open, open to done or blocked.
            const id = rnd.one(rnd.next() < 0.5 ? done : open);
            if (!id) break;
            const to = rnd.one(['open', 'done', 'blocked'])!;
            log.push(`by hand: ${id} status ${to}`);
            edit(id, (t) => t.replace(/^status: .*$/m, `status: "${to}"`));
            break;
          }
          case 12: {
            // A claim or a dependency dropped by hand, mostly where shown: entries left out come into view.
            const id = rnd.one(blocked.slice(0, rnd.next() < 0.8 ? 50 : undefined)) ?? any;
            log.push(`by hand: ${id} claim and dependencies dropped`);
            edit(id, (t) => t.replace(/claim:\n(  .*\n)+/, '').replace(/depends_on:\n(  .*\n)+/, ''));
            break;
          }
          default:
            // Another view looked at in between (cut from the default answer, or its own).
            await same(rnd.one([['--json', '--limit', '3'], [], ['--json', '--limit', '60']])!);
        }
        await same(['--json']);
        if (step % 10 === 9) await same(['--json', '--limit', '5']);
      }
      // The run went through the fast paths, not only through evaluations.
      expect(how.patched ?? 0, JSON.stringify(how)).toBeGreaterThan(5);
    }, 300_000);
  }
});
