import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graphProject } from '../helpers/graph.js';
import { withoutLocal } from '../helpers/clones.js';

/**
 * A patched answer is stored as a delta of the answer stored whole before it (store/answer-delta.ts):
 * after a new title, a new priority or a few new verdicts, the call writes kilobytes, not the whole
 * answer. Each answer here must print, to the byte, what a full evaluation prints (local/ moved
 * aside), whether it was read from a delta, patched from one, or stored as one; and a delta whose base
 * is gone or is another answer's, or that is torn, is evaluated again, never printed.
 */

const NOW = '2026-11-30T06:00:00Z';

describe('an answer stored as a delta', () => {
  it('prints what a full evaluation prints after titles, priorities, a complete and a pick, and is evaluated where its base is not its own', async () => {
    const { p, ids } = await graphProject(300);
    const env = { HOLON_NOW: NOW, HOLON_TRACE_INDEX: '1' };
    const cache = join(p.home, 'local/cache');
    const text = join(cache, 'frontier-main-all.txt');
    const base = join(cache, 'frontier-main-all.base.txt');
    const same = async (what: string) => {
      const fast = await p.h(['frontier', '--json'], env);
      expect(fast.code, `${what}: ${fast.stderr}`).toBe(0);
      const full = await withoutLocal(p.dir, () => p.h(['frontier', '--json'], { HOLON_NOW: NOW }));
      expect(fast.stdout, what).toBe(full.stdout);
      return fast.stderr;
    };
    const ok = async (...args: string[]) => {
      const r = await p.h(args, env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r;
    };
    expect(await same('first')).toContain('frontier: evaluated');
    const open = JSON.parse((await ok('frontier', '--json')).stdout).runnable.map((e: { id: string }) => e.id);
    const whole = statSync(text).size;

    // A new title: patched, and stored as a delta; the text file is kilobytes, the base the old answer.
    await ok('edit', open[3], '--title', 'renamed once');
    const renamed = await same('a new title');
    expect(renamed).toContain('reused with 1 entry patched');
    expect(renamed).toContain('stored as a delta');
    expect(statSync(text).size).toBeLessThan(whole / 10);
    expect(existsSync(base)).toBe(true);
    // Read from the delta as it is, then patched from it again: a delta of the same base.
    expect(await same('reused from the delta')).toContain('frontier: reused (');
    const baseIno = statSync(base).ino;
    await ok('edit', open[5], '--priority', 'P4');
    expect(await same('a new priority')).toContain('stored as a delta');
    await ok('edit', open[3], '--title', 'renamed twice');
    await same('a second title');
    expect(statSync(base).ino).toBe(baseIno);
    // A few new verdicts: a complete, then the pick that reads the top alone.
    await ok('pick', open[0]);
    await ok('complete', open[0], '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
    expect(await same('a complete')).toContain('frontier: patched');
    await same('before the pick');
    const top = JSON.parse((await ok('frontier', '--json')).stdout).runnable[0].id;
    expect(JSON.parse((await ok('pick', '--json')).stdout).focus).toBe(top);
    await same('a pick');

    // The base made another answer's (another call's first delta): the delta is not read; evaluated.
    await ok('edit', open[7], '--title', 'renamed again');
    await same('before the base is replaced');
    expect(readFileSync(text, 'latin1').split('\n')[1]).toMatch(/^@delta /);
    writeFileSync(base, `0123456789abcdef\n${readFileSync(base, 'latin1').split('\n').slice(1).join('\n')}`);
    expect(await same('a base that is another answer')).toContain('frontier: evaluated');
    // A torn delta (cut short in place): evaluated too.
    await ok('edit', ids.find((id) => open.includes(id) && id !== open[3] && id !== open[7])!, '--title', 'renamed at last');
    expect(await same('one more title')).toContain('stored as a delta');
    const d = readFileSync(text);
    writeFileSync(text, d.subarray(0, d.length - 3));
    expect(await same('a torn delta')).toContain('frontier: evaluated');
    // Its base gone: evaluated.
    await ok('edit', open[3], '--title', 'renamed for the base');
    expect(await same('a delta again')).toContain('stored as a delta');
    rmSync(base);
    expect(await same('its base gone')).toContain('frontier: evaluated');
  });
});
