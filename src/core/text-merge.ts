/**
 * A three-way merge of text by lines (diff3), for the parts of a record holon does not understand:
 * hand-written sections and unknown front matter keys. Pure; sections are short, so an O(n*m) LCS is
 * enough. Overlapping changes come back as git-style conflict blocks.
 */

export interface TextMerge {
  text: string;
  conflict: boolean;
}

/** Pairs of matching line indexes (base, side) on a longest common subsequence. */
function lcsPairs(a: string[], b: string[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  }
  const out: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push([i++, j++]);
    } else if (dp[i + 1][j] >= dp[i][j + 1]) i++;
    else j++;
  }
  return out;
}

/** For each base line, the index it matches in `side`, or -1. */
function matchMap(base: string[], side: string[]): Int32Array {
  const map = new Int32Array(base.length).fill(-1);
  for (const [i, j] of lcsPairs(base, side)) map[i] = j;
  return map;
}

const eq = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export interface MarkerLabels {
  ours: string;
  theirs: string;
}

/** Merges line arrays; returns the lines and whether a conflict block was written. */
export function mergeLines(base: string[], ours: string[], theirs: string[], labels: MarkerLabels = { ours: 'ours', theirs: 'theirs' }): { lines: string[]; conflict: boolean } {
  const mo = matchMap(base, ours);
  const mt = matchMap(base, theirs);
  const out: string[] = [];
  let conflict = false;
  let b = 0;
  let o = 0;
  let t = 0;
  const emitChunk = (bEnd: number, oEnd: number, tEnd: number) => {
    const B = base.slice(b, bEnd);
    const O = ours.slice(o, oEnd);
    const T = theirs.slice(t, tEnd);
    if (eq(O, B)) out.push(...T);
    else if (eq(T, B) || eq(O, T)) out.push(...O);
    else {
      conflict = true;
      out.push(`<<<<<<< ${labels.ours}`, ...O, '=======', ...T, `>>>>>>> ${labels.theirs}`);
    }
  };
  for (;;) {
    // The next base line kept by both sides is a stable anchor.
    let k = b;
    while (k < base.length && !(mo[k] >= o && mt[k] >= t)) k++;
    if (k >= base.length) {
      emitChunk(base.length, ours.length, theirs.length);
      break;
    }
    emitChunk(k, mo[k], mt[k]);
    out.push(base[k]);
    b = k + 1;
    o = mo[k] + 1;
    t = mt[k] + 1;
  }
  return { lines: out, conflict };
}

/** Merges text; a trailing newline is kept when the merged sides have one. */
export function mergeText(base: string, ours: string, theirs: string, labels?: MarkerLabels): TextMerge {
  if (ours === theirs) return { text: ours, conflict: false };
  if (base === ours) return { text: theirs, conflict: false };
  if (base === theirs) return { text: ours, conflict: false };
  const split = (s: string) => (s === '' ? [] : s.replace(/\n$/, '').split('\n'));
  const r = mergeLines(split(base), split(ours), split(theirs), labels);
  const nl = ours.endsWith('\n') || theirs.endsWith('\n');
  return { text: r.lines.join('\n') + (nl && r.lines.length ? '\n' : ''), conflict: r.conflict };
}
