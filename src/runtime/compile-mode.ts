import { setFlagsFromString } from 'node:v8';
import { nodeBinding } from '../store/node-binding.js';

/**
 * V8's optimizing compiler in a short command. It costs more cpu than it saves in a command that
 * runs for a few hundred ms (it compiles on a second thread), yet turning it off means setting a V8
 * flag at run time (setFlags, below). So a short command starts with it on and turns it off only
 * before work that takes long: a full listing of a big agent, a whole-graph evaluation, a patch of a
 * big answer. The mark is set by bin/holon.js and kept on the process (the light bundles and the
 * whole CLI are separate module graphs); a long-running command (watch, dash, mcp, index) has none,
 * nor a run with HOLON_V8_OPT=1.
 */
const MARK = Symbol.for('holon.short-command');
/** store/code-cache.ts's CAPTURE (not imported: that would bring the loader, node:vm, into every bundle). */
const CODE_CACHE_CAPTURE = Symbol.for('holon.code-cache-capture');

/**
 * From this many items, a short command's evaluation also tells V8 to favour memory over speed: at
 * 50,000 items the heap it would otherwise grow (garbage of the load and the evaluation, promoted
 * before it dies) took a cold frontier's peak to 155-180 MB; with it, 132-135 MB, for some 20 % more
 * time. Below this the peak is under 100 MB and speed is what counts.
 */
export const BIG_GRAPH = 20_000;

/**
 * How fast V8 grows its young generation after a scavenge, from 1 MB towards 16 MB: twice by default.
 * A short command below BIG_GRAPH keeps it at 1 MB (a factor of 1: no growth). Each first touch of a
 * page is a fault the kernel bills as system time, some microseconds on the machines measured, and a
 * grown young generation is megabytes of fresh pages: a cold frontier at 10,000 items took 16,100 page
 * faults with a factor of 4 (chosen once by instruction counts, which leave the kernel out) and 9,800
 * with 1, 94 MB of peak memory against 70, the same user time and 20-30 ms less system time (medians
 * of 10 interleaved runs); a frontier with no keeper at 10,000, 5,100 faults against 3,900. A big graph,
 * or a listing of 20,000 files or more, keeps V8's default: at 50,000 items no growth took a cold
 * frontier's user time up by 0.5 s (more of the graph copied by each small scavenge). Set only on node
 * 20, where it was measured: V8 prints an error for a flag it does not know.
 */
const GROWTH = process.versions.node.startsWith('20.') ? 1 : 0;

type Marked = { [MARK]?: 'short' | 'off' | 'small' };

/**
 * Before long work in a short command: the optimizing compiler off from now on, and for a big graph
 * (`items` evaluated) memory first. `files`: how many files the work lists (a listing evaluates
 * nothing), which decides the young generation's growth.
 */
export function beforeLongWork(items = 0, files = items): void {
  const g = globalThis as Marked;
  const state = g[MARK];
  const big = items >= BIG_GRAPH;
  if (state === undefined || state === 'small' || (state === 'off' && !big)) return;
  const growth = !GROWTH ? '' : big ? '--semi-space-growth-factor=2' : files < BIG_GRAPH ? `--semi-space-growth-factor=${GROWTH}` : '';
  const flags = [state === 'short' ? '--no-opt' : '', big ? '--optimize-for-size' : '', growth].filter(Boolean);
  g[MARK] = big ? 'small' : 'off';
  if (!flags.length) return;
  // The code cache of this run's bundle is made first, under the flags the next start will have.
  (g as { [CODE_CACHE_CAPTURE]?: () => void })[CODE_CACHE_CAPTURE]?.();
  setFlags(flags.join(' '));
}

/**
 * V8's flags set at run time. node:v8's setFlagsFromString checks that its argument is a string and
 * calls V8 through node's v8 binding; loading node:v8 itself brings node's streams (its heap snapshot
 * code) and cost 3.5-6 ms of cpu here, some 5 % of a patched frontier at 10,000 items. So the binding
 * is called directly when it has that function (store/node-binding.ts), otherwise node:v8.
 * test/store/compile-mode.test.ts checks that the optimizer is off afterwards.
 */
function setFlags(flags: string): void {
  const binding = nodeBinding<{ setFlagsFromString?: (flags: string) => void }>('v8');
  if (typeof binding?.setFlagsFromString === 'function') binding.setFlagsFromString(flags);
  else setFlagsFromString(flags);
}
