import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * runtime/compile-mode.ts in a process of its own (it changes V8's flags for the rest of the process):
 * the states a short command goes through, and that nothing changes without bin/holon.js's mark. That
 * a light command never loads node:v8 is test/cli/bundle.test.ts's (the bundle loads it lazily).
 */
function states(script: string): string[] {
  const mod = JSON.stringify(join(ROOT, 'dist/runtime/compile-mode.js'));
  const code = `const { beforeLongWork, BIG_GRAPH } = await import(${mod});
const MARK = Symbol.for('holon.short-command');
const seen = [];
const note = () => seen.push(String(globalThis[MARK]));
${script}
console.log(JSON.stringify(seen));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  // V8 prints an error for a flag it does not know, and goes on: every flag set must be one it knows.
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

describe('the compile mode of a short command', () => {
  it('turns the optimizer off once before long work, and memory first only for a big graph', () => {
    expect(states(`globalThis[MARK] = 'short'; note(); beforeLongWork(); note(); beforeLongWork(10); note(); beforeLongWork(BIG_GRAPH); note(); beforeLongWork(BIG_GRAPH); note();`))
      .toEqual(['short', 'off', 'off', 'small', 'small']);
    expect(states(`globalThis[MARK] = 'short'; beforeLongWork(BIG_GRAPH); note();`)).toEqual(['small']);
  });

  it('changes nothing in a long-running command or under HOLON_V8_OPT (no mark)', () => {
    expect(states(`beforeLongWork(); beforeLongWork(BIG_GRAPH); note();`)).toEqual(['undefined']);
  });
});
