/**
 * Write scopes are path globs relative to the repository root (`src/api/**`, `docs/*.md`, `README.md`).
 * A glob without wildcards also covers everything under it (a folder). Two scopes overlap unless we can
 * show that no path matches both; unprovable cases count as overlapping (the safe answer).
 */

const WILD = /[*?[{]/;

export function scopeProblem(glob: string): string | null {
  const g = String(glob ?? '').trim();
  if (!g) return 'write_scope entry is empty';
  if (g.startsWith('/')) return `write_scope "${g}" is absolute; write it relative to the repository root`;
  if (g.split('/').includes('..')) return `write_scope "${g}" climbs out of the repository with ".."`;
  return null;
}

const SEGMENTS = new Map<string, string[]>();

/** A glob's path segments (memoized: a frontier compares the same few globs thousands of times). */
function segments(glob: string): string[] {
  let segs = SEGMENTS.get(glob);
  if (!segs) {
    segs = glob.trim().replace(/^\.\//, '').split('/').filter((s) => s !== '' && s !== '.');
    SEGMENTS.set(glob, segs);
  }
  return segs;
}

const segRegex = (seg: string) =>
  // `[!...]` (and `[^...]`) negate a class: a plain escape would turn `[^` into a class holding "^".
  new RegExp('^' + seg.replace(/\[[!^]/g, '\u0000').replace(/[.+^$()|\\]/g, '\\$&').replace(/\u0000/g, '[^').replace(/\{([^}]*)\}/g, (_, alts: string) => `(${alts.split(',').join('|')})`).replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '$');

function literalPrefix(seg: string): string {
  const i = seg.search(WILD);
  return i === -1 ? seg : seg.slice(0, i);
}

function literalSuffix(seg: string): string {
  let i = seg.length;
  while (i > 0 && !WILD.test(seg[i - 1]) && seg[i - 1] !== ']' && seg[i - 1] !== '}') i--;
  return seg.slice(i);
}

/** Whether one path segment can match both patterns. */
function segmentsMayMeet(a: string, b: string): boolean {
  const wa = WILD.test(a);
  const wb = WILD.test(b);
  if (!wa && !wb) return a === b;
  if (!wa) return segRegex(b).test(a);
  if (!wb) return segRegex(a).test(b);
  const pa = literalPrefix(a), pb = literalPrefix(b);
  if (!(pa.startsWith(pb) || pb.startsWith(pa))) return false;
  const sa = literalSuffix(a), sb = literalSuffix(b);
  return sa.endsWith(sb) || sb.endsWith(sa);
}

/** Whether two globs may name a common path. */
export function globsOverlap(a: string, b: string): boolean {
  const sa = segments(a);
  const sb = segments(b);
  const n = Math.min(sa.length, sb.length);
  for (let i = 0; i < n; i++) {
    if (sa[i] === '**' || sb[i] === '**') return true;
    if (!segmentsMayMeet(sa[i], sb[i])) return false;
  }
  // One ran out first: it names a folder (or matches one) that contains the other's paths.
  return true;
}

/** The first pair of overlapping globs of two scopes, or null when they are disjoint. */
export function scopesOverlap(a: string[], b: string[]): [string, string] | null {
  for (const x of a) for (const y of b) if (globsOverlap(x, y)) return [x, y];
  return null;
}

/**
 * Whether a repository path falls inside a scope glob: the glob matches the path or one of its folders
 * (`src/grid/**` and `src/grid` both cover `src/grid/a.ts`), the same reading `globsOverlap` gives.
 */
export function pathInGlob(path: string, glob: string): boolean {
  const p = segments(path);
  const g = segments(glob);
  const match = (i: number, j: number): boolean => {
    if (j === g.length) return true; // the glob names a folder of the path (or the path itself)
    if (g[j] === '**') return match(i, j + 1) || (i < p.length && match(i + 1, j));
    if (i === p.length) return false;
    return (WILD.test(g[j]) ? segRegex(g[j]).test(p[i]) : g[j] === p[i]) && match(i + 1, j + 1);
  };
  return match(0, 0);
}

/** The paths outside every glob of `scope` (an empty scope allows everything). */
export function outsideScope(paths: string[], scope: string[]): string[] {
  if (!scope.length) return [];
  return paths.filter((p) => !scope.some((g) => pathInGlob(p, g)));
}
