import { linkSync, renameSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { writeCache } from './cache-file.js';
import { randomBytes } from './random.js';
import { fileText, readerText, TextRange, type AnswerText, type Part } from './answer-text.js';

/**
 * A patched answer stored as a delta of an answer stored before it, so that a new title, a new
 * priority or a few new verdicts write kilobytes, not the whole answer (1.5 MB at 10,000 items, 7.5 MB
 * at 50,000: copying it was a fifth of such a call's cpu).
 *
 * The answer's text file (answer-file.ts) then holds, after its token line:
 *
 *     @delta BASETOKEN
 *     [a, b, a, b, ...]        one JSON line: per segment, a range [a, b) of the base text, or -1 and a length
 *     bytes                    the new bytes of the segments of length, in order
 *
 * and the base is the text of an answer stored whole, in a file of its own beside it (`base`: same
 * layout as a text file, token line first). The first delta of an answer makes that answer's file the
 * base by a hard link (the text file is then replaced by the delta; the base's inode is the one the
 * answer was written to, so the link is checked to hold that answer's token); a delta of a delta
 * refers to the same base. A new answer stored whole leaves the base as it is: the next delta links
 * the new one over it.
 *
 * A reader checks the base's token line against the delta's: a base replaced since (another answer's
 * first delta) makes the delta unreadable, and the answer is read as missing (evaluated again), never
 * wrong. The delta is written whole, by temp file and rename, like any text (cache-file.ts); past
 * MAX_NEW bytes of new text or MAX_SEGS segments, the answer is written whole instead.
 */

const MARK = '@delta ';

/** New bytes a delta carries at most (the titles and verdicts of some hundreds of patched entries). */
const MAX_NEW = 256 * 1024;
/** Segments a delta has at most (each patch adds about two). */
const MAX_SEGS = 2048;

/** A part of a delta: a range [from, to) of the base text, or new bytes. */
type Seg = readonly [number, number] | Buffer;

const segLength = (s: Seg) => (Buffer.isBuffer(s) ? s.length : s[1] - s[0]);

/** Where a stored answer's text lies: its own file (`whole`) or a base file, and the segments of a range. */
interface Stored {
  /** The token of the file `path` (the answer's own, or its base's). */
  token: string;
  path: string;
  /** `path` is a base already (the text is a delta of it); else it is the answer's own file. */
  base: boolean;
  segments(a: number, b: number): Seg[];
}

/** A stored answer's text with where it lies (answer-file.ts storedText). */
export type StoredText = AnswerText & { stored?: Stored };

/** A parsed delta: its base's token, and its segments in order (new bytes as views of the delta file). */
export interface Delta {
  base: string;
  segs: Seg[];
  length: number;
}

/** Whether a text (the bytes after a text file's token line) is a delta. */
export const isDelta = (text: Buffer): boolean => text.length >= MARK.length && text.toString('latin1', 0, MARK.length) === MARK;

/** The delta in `text` (after the token line); null where it is torn or not one. */
export function parseDelta(text: Buffer): Delta | null {
  if (!isDelta(text)) return null;
  const nl1 = text.indexOf(10);
  const nl2 = nl1 < 0 ? -1 : text.indexOf(10, nl1 + 1);
  if (nl2 < 0) return null;
  const base = text.toString('latin1', MARK.length, nl1);
  let nums: unknown;
  try {
    nums = JSON.parse(text.toString('latin1', nl1 + 1, nl2));
  } catch {
    return null;
  }
  if (!base || !Array.isArray(nums) || nums.length % 2) return null;
  const segs: Seg[] = [];
  let at = nl2 + 1;
  let length = 0;
  for (let i = 0; i < nums.length; i += 2) {
    const a = nums[i];
    const b = nums[i + 1];
    if (!Number.isInteger(a) || !Number.isInteger(b)) return null;
    if (a === -1) {
      if (b < 0 || at + b > text.length) return null;
      segs.push(text.subarray(at, at + b));
      at += b;
      length += b;
    } else {
      if (a < 0 || b < a) return null;
      segs.push([a, b]);
      length += b - a;
    }
  }
  return at === text.length ? { base, segs, length } : null;
}

/** The text of the base file `path` whose token line is `token`, read where it is used; null where it is another file (or none). */
export const openBase = (path: string, token: string): AnswerText | null => fileText(path, token, Buffer.from(`${token}\n`));

/**
 * The text of delta `d` over the text `base` (openBase of `basePath`), of which `known` (its first
 * bytes) was read already; `close` closes the base. Null where a segment lies past the base's end.
 */
export function deltaText(d: Delta, basePath: string, base: AnswerText, known: Buffer = Buffer.alloc(0)): StoredText | null {
  // Each segment's start in the text.
  const at: number[] = [];
  let n = 0;
  for (const s of d.segs) {
    if (!Buffer.isBuffer(s) && s[1] > base.length) return null;
    at.push(n);
    n += segLength(s);
  }
  const length = n;
  /** The segment that holds text byte `p` (p < length). */
  const segAt = (p: number) => {
    let lo = 0;
    let hi = at.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (at[mid] <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const clip = (p: number) => Math.max(0, Math.min(p, length));
  /** Each segment's part of text [a, b) in order: the segment, where in it, how long. */
  const walk = (a: number, b: number, each: (s: Seg, from: number, len: number) => void) => {
    for (let k = a < b ? segAt(a) : 0; a < b; k++) {
      const s = d.segs[k];
      const len = Math.min(b, at[k] + segLength(s)) - a;
      each(s, a - at[k], len);
      a += len;
    }
  };
  /** Text [a, b) into `buf` from its start (b - a at most its length). */
  const fill = (buf: Buffer, a: number, b: number): Buffer => {
    let off = 0;
    walk(a, b, (s, from, len) => {
      if (Buffer.isBuffer(s)) s.copy(buf, off, from, from + len);
      else base.into(buf.subarray(off), s[0] + from, s[0] + from + len);
      off += len;
    });
    return buf.subarray(0, off);
  };
  return {
    ...readerText(length, known, fill, () => base.close()),
    stored: {
      token: d.base,
      path: basePath,
      base: true,
      segments(a, b) {
        const out: Seg[] = [];
        walk(clip(a), clip(b), (s, from, len) => out.push(Buffer.isBuffer(s) ? s.subarray(from, from + len) : [s[0] + from, s[0] + from + len]));
        return out;
      },
    },
  };
}

/** The delta of `parts` (of `src`'s text) over `src`'s base, merged; null past the limits, or where `src` does not say where it lies. */
function deltaOf(parts: Part[], src: StoredText): Seg[] | null {
  const stored = src.stored;
  if (!stored) return null;
  const segs: Seg[] = [];
  let fresh = 0;
  // New bytes next to each other are one segment (a patch gives an entry and its comma apart).
  let pending: Buffer[] = [];
  const flush = () => {
    if (pending.length) segs.push(pending.length === 1 ? pending[0] : Buffer.concat(pending));
    pending = [];
  };
  const push = (s: Seg) => {
    if (Buffer.isBuffer(s)) {
      fresh += s.length;
      if (s.length) pending.push(s);
      return;
    }
    if (s[1] <= s[0]) return;
    flush();
    const last = segs[segs.length - 1];
    if (last && !Buffer.isBuffer(last) && last[1] === s[0]) segs[segs.length - 1] = [last[0], s[1]];
    else segs.push(s);
  };
  for (const p of parts) {
    // (Bytes the text gave as read, views of its memory, are ranges of it, not new bytes.)
    const from = p instanceof TextRange ? p.from : src.offsetOf(p);
    if (from >= 0) for (const s of stored.segments(from, from + p.length)) push(s);
    else push(Buffer.from((p as Buffer).buffer, (p as Buffer).byteOffset, p.length));
    if (fresh > MAX_NEW || segs.length > MAX_SEGS) return null;
  }
  flush();
  return segs;
}

/**
 * Writes the answer `parts` (of the stored answer `src`) to `path` under `token` as a delta, its base
 * at `basePath` (made from `src`'s own file where `src` is not a delta yet); false where it is not
 * written so (past the limits, no hard link, a base another call replaced): then it is written whole.
 */
export function writeDelta(path: string, basePath: string, tmpDir: string, token: string, parts: Part[], src: StoredText): boolean {
  const segs = deltaOf(parts, src);
  const stored = src.stored;
  if (!segs || !stored) return false;
  if (!stored.base) {
    // The answer's own file becomes the base, by a second name, renamed into place only if it is still
    // that answer's (another call may have stored over it since: its base, if any, stays).
    const tmp = join(tmpDir, `${basename(basePath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      linkSync(stored.path, tmp);
      const check = openBase(tmp, stored.token);
      if (!check) throw new Error('another answer');
      check.close();
      renameSync(tmp, basePath);
    } catch {
      return false;
    } finally {
      // (Where the base was that very file already, the rename left this name.)
      try { unlinkSync(tmp); } catch { /* renamed */ }
    }
  } else {
    // The base holds the text `src` was read from: its token (else another call made another base since).
    const check = openBase(basePath, stored.token);
    if (!check) return false;
    check.close();
  }
  const nums: number[] = [];
  const fresh: Buffer[] = [];
  for (const s of segs) {
    if (Buffer.isBuffer(s)) {
      nums.push(-1, s.length);
      fresh.push(s);
    } else nums.push(s[0], s[1]);
  }
  return writeCache(path, Buffer.concat([Buffer.from(`${token}\n${MARK}${stored.token}\n${JSON.stringify(nums)}\n`), ...fresh]), tmpDir);
}
