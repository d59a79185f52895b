import { setFlagsFromString } from 'node:v8';

/**
 * V8's optimizing compiler in a short command. It costs more cpu than it saves in a command that
 * runs for a few hundred ms (it compiles on a second thread), yet turning it off needs node:v8, whose
 * loading (it brings node's streams) costs some 5 ms: more than most commands' own work. So a short
 * command starts with it on and turns it off only before work that takes long: a whole-graph
 * evaluation. The mark is set by bin/holon.js and kept on the process (the light bundles and the
 * whole CLI are separate module graphs); a long-running command (watch, dash, mcp, index) has none,
 * nor a run with HOLON_V8_OPT=1.
 */
const MARK = Symbol.for('holon.short-command');

type Marked = { [MARK]?: 'short' | 'off' };

/** Before long work in a short command: the optimizing compiler off from now on (once). */
export function beforeLongWork(): void {
  const g = globalThis as Marked;
  if (g[MARK] !== 'short') return;
  g[MARK] = 'off';
  setFlagsFromString('--no-opt');
}
