import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * runtime/compile-mode.ts in a process of its own (it changes V8's flags for the rest of the process):
 * the states a short command goes through, and that nothing changes without bin/holon.js's mark. That
 * a light command never loads node:v8 is test/cli/bundle.test.ts's (the bundle loads it lazily).
 */
function states(script: string, flags: string[] = []): string[] {
  const mod = JSON.stringify(join(ROOT, 'dist/runtime/compile-mode.js'));
  const code = `const { beforeLongWork, BIG_GRAPH } = await import(${mod});
const MARK = Symbol.for('holon.short-command');
const seen = [];
const note = () => seen.push(String(globalThis[MARK]));
${script}
console.log(JSON.stringify(seen));`;
  const r = spawnSync(process.execPath, [...flags, '--allow-natives-syntax', '--input-type=module', '-e', code], { encoding: 'utf8' });
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

  // (That the bundles do it without loading node:v8 is test/cli/bundle.test.ts's: this build imports it.)
  it('turns it off for real, with no warning: a function V8 is then told to optimize stays unoptimized', () => {
    // V8's optimization status: bit 4 (16) is "optimized by TurboFan" (src/runtime/runtime.h, OptimizationStatus).
    const optimized = (before: string, flags: string[] = []) =>
      states(`function f(x) { return x + 1; }
${before}
%PrepareFunctionForOptimization(f); f(1); f(2); %OptimizeFunctionOnNextCall(f); f(3);
seen.push((%GetOptimizationStatus(f) & 16) !== 0);`, flags);
    expect(optimized('')).toEqual([true]);
    // Node's deprecation flags change nothing (process.binding is DEP0111; --no-deprecation makes
    // process.noDeprecation read-only, which store/node-binding.ts leaves alone).
    for (const flag of [[], ['--pending-deprecation'], ['--throw-deprecation', '--pending-deprecation'], ['--no-deprecation']]) {
      expect(optimized(`globalThis[MARK] = 'short'; beforeLongWork();`, flag), flag.join(' ')).toEqual([false]);
    }
  });

  it('changes nothing in a long-running command or under HOLON_V8_OPT (no mark)', () => {
    expect(states(`beforeLongWork(); beforeLongWork(BIG_GRAPH); note();`)).toEqual(['undefined']);
  });
});
