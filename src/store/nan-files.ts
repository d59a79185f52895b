/** The bytes of NaN as this build stores it (putStat, quickDigest: the literal). */
const NAN_BYTES = Buffer.from(new Float64Array([NaN]).buffer);

/**
 * The files whose first number is NaN (racy, hard-linked, irregular: stat'ed on every call), in
 * order, without a loop over every file: such a loop, at 50,000 files, made V8 compile it on the
 * spot (on-stack replacement), a cost of several ms each call that only a few files called for.
 * The NaNs are found by their bytes; any other NaN (a file not of this build's making) leaves one the
 * search did not clear, and then every file is looked at.
 */
export function nanFiles(stats: Float64Array): number[] {
  if (!stats.includes(NaN)) return [];
  const bytes = Buffer.from(stats.buffer, stats.byteOffset, stats.byteLength);
  // In order, since the search goes forward: a file with several NaNs is met in a row.
  const found: number[] = [];
  // Each NaN found is cleared in place for the check below, and put back after it: a copy of the
  // numbers to clear them in (1.6 MB at 50,000 files) cost more, in fresh memory, than the search.
  const cleared: number[] = [];
  let other: boolean;
  try {
    for (let at = bytes.indexOf(NAN_BYTES); at >= 0; at = bytes.indexOf(NAN_BYTES, at + 1)) {
      if (at % 8) continue;
      stats[at / 8] = 0;
      cleared.push(at);
      const i = Math.floor(at / 32);
      if (found[found.length - 1] !== i) found.push(i);
    }
    other = stats.includes(NaN);
  } finally {
    for (const at of cleared) bytes.set(NAN_BYTES, at);
  }
  if (other) {
    const all: number[] = [];
    for (let i = 0; 4 * i < stats.length; i++) if (Number.isNaN(stats[4 * i])) all.push(i);
    return all;
  }
  return found.filter((i) => Number.isNaN(stats[4 * i]));
}
