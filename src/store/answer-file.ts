import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeCache } from './cache-file.js';
import type { Home } from './home.js';
import { trace } from './trace.js';
import { bufferText, fileText, partChunks, TextRange, type AnswerText, type Part } from './answer-text.js';
import { deltaText, isDelta, openBase, parseDelta, writeDelta, type Delta, type StoredText } from './answer-delta.js';
import { afterFirstLine, basePath, CACHE_VERSION, cachePath, textPath, type FrontierHeader, type FrontierView } from './frontier-files.js';

/**
 * A stored answer's text file, read and written: the text as it was printed after a token line the
 * header names, whole, or as a delta of an answer stored whole (answer-delta.ts). Every reader here
 * composes a delta with its base, so that nothing else sees one.
 */

export interface CachedFrontier {
  header: FrontierHeader;
  /** The text file's bytes; the answer starts at `start` (after the token line). */
  bytes: Buffer;
  start: number;
  /** Only the file's first bytes were read (readCachedFrontier's `head`). */
  partial: boolean;
  /** The text is stored as a delta of a base (answer-delta.ts): `bytes` is then its text as composed, after the file's token line. */
  delta?: Delta;
}

/**
 * The last answer: a small header file (fingerprints, validity) and the text as it was printed, in its
 * own file that starts with a random token line the header names. A call that only learns new file keys
 * (a progress note) rewrites the header, not megabytes of text; a header and a text written by two
 * different calls never pair up, since their tokens differ.
 */
export function readCachedFrontier(home: Home, agent: string, view: FrontierView, head?: number): CachedFrontier | null {
  try {
    const header = JSON.parse(readFileSync(cachePath(home, agent, view), 'utf8')) as FrontierHeader;
    if (header.v !== CACHE_VERSION) return null;
    // Bytes, never decoded: at 50,000 items the answer is megabytes, and decoding it, setting `now` in
    // a string copy and encoding it again for stdout cost several times what reading it does.
    // (At least the token line and the mark of a delta: the heads asked for are kilobytes anyway.)
    const { bytes, partial } = head === undefined ? { bytes: readFileSync(textPath(home, agent, view)), partial: false } : readStart(textPath(home, agent, view), Math.max(head, 256));
    const nl = bytes.indexOf(10);
    if (nl < 0 || bytes.toString('utf8', 0, nl) !== header.token) return null;
    if (!isDelta(bytes.subarray(nl + 1))) return { header, bytes, start: nl + 1, partial };
    // A delta (kilobytes): read whole where its start was not, and composed with its base.
    const whole = partial ? readFileSync(textPath(home, agent, view)) : bytes;
    if (!whole.subarray(0, nl + 1).equals(bytes.subarray(0, nl + 1))) return null;
    const delta = parseDelta(whole.subarray(nl + 1));
    const text = delta && overBase(home, agent, view, delta);
    if (!text) return null;
    try {
      // The token line, then the text composed into the same memory (at 50,000 items, megabytes whole).
      const end = head === undefined ? text.length : Math.min(head, text.length);
      const out = Buffer.allocUnsafe(nl + 1 + end);
      bytes.copy(out, 0, 0, nl + 1);
      const got = text.into(out.subarray(nl + 1), 0, end);
      if (got.buffer !== out.buffer || got.byteOffset !== out.byteOffset + nl + 1) got.copy(out, nl + 1);
      return { header, bytes: out, start: nl + 1, partial: end < text.length, delta };
    } finally {
      text.close();
    }
  } catch {
    return null;
  }
}

/**
 * The stored text under `token`, read where it is used: its own file, or a delta over its base (then
 * `delta` is the parsed delta); null where the file is not that answer's, or its base is not the delta's.
 */
function openStored(home: Home, agent: string, view: FrontierView, token: string): (StoredText & { delta?: Delta }) | null {
  const path = textPath(home, agent, view);
  const line = Buffer.from(`${token}\n`);
  let start: Buffer;
  try {
    start = readStart(path, line.length + 64).bytes;
  } catch {
    return null;
  }
  if (!isDelta(start.subarray(line.length))) return withStored(fileText(path, token, line), path, token);
  let whole: Buffer;
  try {
    whole = readFileSync(path);
  } catch {
    return null;
  }
  if (!whole.subarray(0, line.length).equals(line)) return null;
  const delta = parseDelta(whole.subarray(line.length));
  return delta && overBase(home, agent, view, delta);
}

/** The text of `delta` over its base, with `known` (its first bytes) read already; null where the base is not the delta's. */
function overBase(home: Home, agent: string, view: FrontierView, delta: Delta, known?: Buffer): (StoredText & { delta: Delta }) | null {
  const path = basePath(home, agent, view);
  const base = openBase(path, delta.base);
  const text = base && deltaText(delta, path, base, known);
  if (base && !text) base.close();
  return text && Object.assign(text, { delta });
}

/** A stored answer's own text (not a delta) with where it lies: its own file, under its token. */
function withStored(text: AnswerText | null, path: string, token: string): StoredText | null {
  return text && Object.assign(text, { stored: { token, path, base: false, segments: (a: number, b: number) => [[a, b] as const] } });
}

/** A file's first `max` bytes (all of it when it is no longer), and whether there is more. */
function readStart(path: string, max: number): { bytes: Buffer; partial: boolean } {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(max + 1);
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    return n > max ? { bytes: buf.subarray(0, max), partial: true } : { bytes: buf.subarray(0, n), partial: false };
  } finally {
    closeSync(fd);
  }
}

/** The whole text of the answer stored under `token` (after its token line); null when it is not the one stored now. */
export function readAnswerText(home: Home, agent: string, view: FrontierView, token: string): Buffer | null {
  const rest = afterFirstLine(textPath(home, agent, view), token);
  if (!rest || !isDelta(rest)) return rest;
  const delta = parseDelta(rest);
  const text = delta && overBase(home, agent, view, delta);
  try {
    return text && text.all();
  } catch {
    // Its base cut short in place (holon never does): read as missing.
    return null;
  } finally {
    text?.close();
  }
}

/**
 * The text of stored answer `c` (the same token), to be read where it is used: what was read of it, or
 * its file (answer-text.ts); null when another answer was stored since `c` was read.
 */
export function storedText(home: Home, agent: string, view: FrontierView, c: CachedFrontier): StoredText | null {
  const known = c.bytes.subarray(c.start);
  // (A delta's base opened again: its own bytes are in `c.delta`, views of the file as it was read.)
  if (c.delta) return overBase(home, agent, view, c.delta, known);
  const path = textPath(home, agent, view);
  return withStored(c.partial ? fileText(path, c.header.token, c.bytes) : bufferText(known), path, c.header.token);
}

/** The bytes of a stored answer after the start a call read, to be copied out in chunks. */
export interface TextCopy {
  /**
   * Gives `write` the bytes in order, each chunk valid only during that call (one buffer is reused:
   * at 50,000 items the answer is 7.5 MB, and a fresh buffer that size costs more in page faults than
   * the read itself), then closes the file.
   */
  copy(write: (chunk: Uint8Array) => void): void;
}

/**
 * The stored answer under `token` from byte `at` of its file on, or null when it is not the one stored
 * now. The file is open from here on: an answer another call stores meanwhile (a new file renamed over
 * this one) does not change what is copied. Copied through answer-text.ts's one small buffer.
 */
export function openAnswerText(home: Home, agent: string, view: FrontierView, token: string, at: number): TextCopy | null {
  const line = Buffer.from(`${token}\n`);
  const text = openStored(home, agent, view, token);
  if (!text) return null;
  let copied = false;
  return {
    copy(write) {
      // Once: the file is closed after it, and its descriptor may be another file's by then.
      if (copied) throw new Error('a stored answer copied twice');
      copied = true;
      try {
        for (const chunk of partChunks([new TextRange(at - line.length, text.length)], text)) write(chunk);
      } finally {
        text.close();
      }
    },
  };
}

/** The cached answer with `now` set to this call's time, in parts (bytes of the cache, and the new `now`). */
export const reuseParts = (c: CachedFrontier, nowIso: string) => withNow([c.bytes.subarray(c.start)], c.header.now, nowIso);

/**
 * An answer's text in parts with its `now` (in its first part, before every channel) set to `nowIso`;
 * the parts as they are when it is not there.
 */
export function withNow(parts: Buffer[], now: string, nowIso: string): Array<string | Uint8Array> {
  const old = `"now": ${JSON.stringify(now)}`;
  const at = parts[0].indexOf(old);
  if (at < 0) return parts;
  return [parts[0].subarray(0, at), `"now": ${JSON.stringify(nowIso)}`, parts[0].subarray(at + Buffer.byteLength(old)), ...parts.slice(1)];
}

/** A patched answer: its parts, ranges of the stored answer `src` among them. */
export interface Patched {
  parts: Part[];
  src: StoredText;
}

const isPatched = (t: unknown): t is Patched => typeof t === 'object' && t !== null && 'src' in t && 'parts' in t;

/**
 * Writes the text of a new answer under `token`: a patched one as a delta of the answer it was patched
 * from where it can be (answer-delta.ts), else whole. Whether it was written.
 */
export function writeAnswerText(home: Home, agent: string, view: FrontierView, token: string, text: string | Uint8Array | Iterable<Uint8Array> | Patched): boolean {
  const tmp = join(home.local, 'tmp');
  const path = textPath(home, agent, view);
  if (isPatched(text) && writeDelta(path, basePath(home, agent, view), tmp, token, text.parts, text.src)) {
    trace('frontier: stored as a delta of an answer stored whole');
    return true;
  }
  // Parts given one at a time (a generator's may share one buffer: see answer-text.ts partChunks).
  function* parts() {
    yield token + '\n';
    if (typeof text === 'string' || text instanceof Uint8Array) yield text;
    else if (isPatched(text)) yield* partChunks(text.parts, text.src);
    else yield* text;
  }
  return writeCache(path, parts(), tmp);
}
