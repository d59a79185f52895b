// The layout of a graph snapshot's file (stat-index.ts says what each part holds), shared by its reader
// (stat-index-read.ts) and its writer (stat-index.ts).

// 'HOLA': the NaN bits; HOL9 the names in readdir's order (a HOL8 snapshot could have added names at its
// end, which a keeper's listing then kept); HOL8 the layout with where each name starts (HOL7 had the
// names' signature, HOL6 the listing digest, HOL5 priority hashes, HOL4 title hashes, HOL3 the
// keeper's mark, HOL2 the stamp only, HOL1 neither: all are foreign).
export const MAGIC = 0x484f4c41;
export const DIGEST = 40;
export const SIG = 16;
export const PER_FILE = 7;
export const SUMS = 3;
export const FIXED = 20;

export const pad8 = (n: number) => (n + 7) & ~7;

/** Whether the head of `buf` (magic, lengths, stamp) is this layout's, written under `stamp`; its end. */
export function headEnd(buf: Buffer, stamp: string): number | null {
  if (buf.length < FIXED || buf.readUInt32LE(0) !== MAGIC) return null;
  const len = buf.readUInt32LE(12);
  const want = Buffer.from(stamp, 'utf8');
  if (len !== want.length || buf.length < FIXED + len || !buf.subarray(FIXED, FIXED + len).equals(want)) return null;
  return FIXED + len;
}

/** The bytes of the NaN bits of `count` files. */
export const bitBytes = (count: number) => (count + 7) >> 3;

/**
 * Where a snapshot's parts are in a file of `size` bytes whose first bytes are `buf` (at least up to
 * the names), or null: another layout or stamp, or torn.
 */
export function layout(buf: Buffer, size: number, stamp: string) {
  const stampEnd = headEnd(buf, stamp);
  if (stampEnd === null || buf.length < FIXED) return null;
  const count = buf.readUInt32LE(4);
  const namesLen = buf.readUInt32LE(8);
  const markEnd = stampEnd + buf.readUInt32LE(16);
  const head = markEnd + DIGEST + SIG;
  const at = pad8(head + namesLen);
  const startsAt = at + (count * PER_FILE + SUMS) * 8;
  const bitsAt = startsAt + (count + 1) * 4;
  return size === bitsAt + bitBytes(count) ? { count, namesLen, stampEnd, markEnd, head, at, startsAt, bitsAt } : null;
}
