import { closeSync, fstatSync, openSync } from 'node:fs';
import { readFully } from './read-fully.js';

/**
 * A stored frontier answer's text (the bytes after its token line), read where it is used. At 10,000
 * items the answer is 1.5 MB (7.5 MB at 50,000): a patch of a title or a priority reads the few
 * entries it changes or checks, and a new answer made from it is stored as a delta of it
 * (answer-delta.ts) or, where it cannot be, copied from file to file through one small buffer
 * (partChunks), where reading it whole into fresh memory cost a page fault per 4 KB and a copy of it all.
 */
export interface AnswerText {
  readonly length: number;
  /** Bytes [a, b) of the text, clipped to it: a view where they were read, else a small read. */
  bytes(a: number, b: number): Buffer;
  /** Text [a, b) as parts of a new answer: views where it was read, a range of the file after that. */
  parts(a: number, b: number): Part[];
  /** Bytes [a, b) read into `buf` (b - a at most its length), or a view where they were read. */
  into(buf: Buffer, a: number, b: number): Buffer;
  /** The whole text, read on first need (a search where the index does not know where entries are). */
  all(): Buffer;
  /** Closes its file, if it has one open (a text held whole has none). */
  close(): void;
  /** Where `p`, if it is a view of the bytes this text has read (what `bytes` and `parts` give), lies in the text; else -1. */
  offsetOf(p: Uint8Array): number;
}

/** Where `p` lies in `known` (the first bytes of a text), if it is a view of that memory; else -1. */
function viewOffset(p: Uint8Array, known: Uint8Array): number {
  return p.buffer === known.buffer && p.byteOffset >= known.byteOffset && p.byteOffset + p.length <= known.byteOffset + known.length ? p.byteOffset - known.byteOffset : -1;
}

/** Bytes [from, to) of an answer's text, copied from its file when the new answer is written. */
export class TextRange {
  constructor(readonly from: number, readonly to: number) {}
  get length(): number {
    return this.to - this.from;
  }
}

export type Part = Buffer | TextRange;

/** A text held whole in memory. */
export function bufferText(text: Buffer): AnswerText {
  const clip = (n: number) => Math.max(0, Math.min(n, text.length));
  return {
    length: text.length,
    bytes: (a, b) => text.subarray(clip(a), clip(b)),
    parts: (a, b) => [text.subarray(clip(a), clip(b))],
    into: (_, a, b) => text.subarray(clip(a), clip(b)),
    all: () => text,
    close: () => undefined,
    offsetOf: (p) => viewOffset(p, text),
  };
}

/**
 * The answer in the file at `path` under `token`, of which `head` (the file's first bytes, the token
 * line's included) was read already; null when the file is not that answer any more. The file stays
 * open (an answer another call stores meanwhile is a new file renamed over this one) until `close`.
 */
export function fileText(path: string, token: string, head: Buffer): AnswerText | null {
  const start = Buffer.byteLength(token) + 1;
  if (head.length < start || head.toString('latin1', 0, start) !== `${token}\n`) return null;
  let fd: number;
  let size: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    size = fstatSync(fd).size;
    const line = Buffer.allocUnsafe(start);
    if (size < head.length || !readFully(fd, line, 0, start, 0) || !line.equals(head.subarray(0, start))) throw new Error('another answer');
  } catch {
    closeSync(fd);
    return null;
  }
  return rangeText(fd, start, size - start, head.subarray(start), true);
}

/**
 * The text at bytes [start, start + length) of the open file `fd`, of which `known` (its first bytes)
 * was read already; `close` closes `fd` where the text `owns` it (else its opener does).
 */
export function rangeText(fd: number, start: number, length: number, known: Buffer = Buffer.alloc(0), owns = false): AnswerText {
  let open: number | null = fd;
  const readTo = (buf: Buffer, a: number, b: number): Buffer => {
    if (open === null || !readFully(open, buf, 0, b - a, start + a)) throw new Error('the stored answer is shorter than it was');
    return buf.subarray(0, b - a);
  };
  return readerText(length, known, readTo, () => {
    if (open !== null && owns) closeSync(open);
    open = null;
  });
}

/**
 * A text of `length` bytes of which `known` (its first bytes) was read already, the rest read where it
 * is used: `readTo(buf, a, b)` puts bytes [a, b) (past what is known) at the start of `buf` and gives
 * that view; `close` lets go of what it reads from.
 */
export function readerText(length: number, known: Buffer, readTo: (buf: Buffer, a: number, b: number) => Buffer, close: () => void): AnswerText {
  let whole = false;
  const clip = (n: number) => Math.max(0, Math.min(n, length));
  return {
    length,
    bytes(a, b) {
      a = clip(a);
      b = clip(b);
      return b <= known.length ? known.subarray(a, b) : readTo(Buffer.allocUnsafe(b - a), a, b);
    },
    parts(a, b) {
      a = clip(a);
      b = clip(b);
      if (b <= known.length) return [known.subarray(a, b)];
      return a < known.length ? [known.subarray(a), new TextRange(known.length, b)] : [new TextRange(a, b)];
    },
    into(buf, a, b) {
      a = clip(a);
      b = clip(b);
      return b <= known.length ? known.subarray(a, b) : readTo(buf, a, b);
    },
    all() {
      if (!whole) {
        known = readTo(Buffer.allocUnsafe(length), 0, length);
        whole = true;
      }
      return known;
    },
    close,
    offsetOf: (p) => viewOffset(p, known),
  };
}

const CHUNK = 64 * 1024;

/**
 * The bytes of `parts` in order, a range of `text`'s file given in chunks of one reused buffer: each
 * chunk is valid only until the next is asked for (writeCache writes each part before it asks).
 */
export function* partChunks(parts: Iterable<Part>, text: AnswerText): Generator<Buffer> {
  let buf: Buffer | null = null;
  for (const p of parts) {
    if (!(p instanceof TextRange)) {
      yield p;
      continue;
    }
    buf ??= Buffer.allocUnsafeSlow(CHUNK);
    for (let at = p.from; at < p.to; at += CHUNK) yield text.into(buf, at, Math.min(p.to, at + CHUNK));
  }
}
