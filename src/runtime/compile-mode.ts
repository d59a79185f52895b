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
 * How fast V8 grows its young generation after a scavenge, from 1 MB towards 16 MB: twice by default,
 * so a load of thousands of entries runs through a dozen small scavenges, each copying what is still
 * live. Four times: a cold frontier at 10,000 items takes 1.5 % fewer instructions (valgrind, all
 * threads), for some 5 MB more peak memory; a big graph, or a listing of 20,000 files or more, keeps
 * the default (memory first: a warm listing at 50,000 peaked 15 MB higher with it). Set only
 * on node 20, where it was measured: V8 prints an error for a flag it does not know.
 */
const GROWTH = process.versions.node.startsWith('20.') ? 4 : 0;

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
