/**
 * The paths a run took through a light command's code, for its V8 code cache (code-cache.ts). The
 * cache holds the compiled code of the functions a run used; written by a run that took a short path
 * (a pick that reused its answer), it lacks the code of a longer one (a pick that patches the answer
 * after a complete), which every such run then compiled again: 4 % of the instructions of a pick
 * after a complete at 10,000 items (valgrind), a fifth of what it adds to a bare node start. So a few
 * branches name themselves here, and a run that took one its cache does not cover writes the cache
 * again, covering both: a few writes per build at most, as the covered paths only grow.
 *
 * A set on the process under a global symbol, not a module's state: the loader (boot.cjs) and the
 * bundles are separate module graphs. Free to call anywhere: a Set add.
 */
const CODE_PATHS = Symbol.for('holon.code-paths');

type Marked = { [CODE_PATHS]?: Set<string> };

/** Notes that this run took the branch `tag` (a word without spaces or commas). */
export function codePath(tag: string): void {
  ((globalThis as Marked)[CODE_PATHS] ??= new Set()).add(tag);
}

/** The branches this run took so far. */
export function codePathsTaken(): string[] {
  return [...((globalThis as Marked)[CODE_PATHS] ?? [])];
}
