import { Hash128 } from '../core/hash128.js';
import { randomBytes } from './random.js';
import { trace } from './trace.js';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Workspace } from '../core/frontier.js';
import { VERSION } from '../version.js';
import { BUILD_ID } from '../build-id.js';
import { fileKey, writeCache } from './cache-file.js';
import { capabilityCachePath } from './capabilities.js';
import { eventsSignature, type InputUse } from './frontier-input.js';
import type { Listing } from './graph-index.js';
import { agentDir, type Home } from './home.js';
import { spendingSignature } from './budget.js';
import { objectsSignature, readHead, readWorkspace } from './workspace.js';
import { parseTitleIndex, titleIndexBytes, type TitleIndex } from './frontier-titles.js';
import { cutParts, parseCut, type CutIndex } from './frontier-cut.js';
import { depParts, parseDeps, type DepIndex } from './frontier-deps.js';
import { bufferText, fileText, partChunks, TextRange, type AnswerText, type Part } from './answer-text.js';
import { deltaText, isDelta, openBase, parseDelta, wholeOfDelta, writeDelta, type Delta, type StoredText } from './answer-delta.js';

/** Same HEAD (read from the files), and no new objects where a commit git did not know would appear (a fetch may bring it). */
function gitUnchanged(g: { head: string | null; unknown: string[]; objects?: string[] }, cwd: string): boolean {
  if (readHead(cwd) !== g.head) return false;
  return g.unknown.every((c, i) => objectsSignature(cwd, [c]) === g.objects?.[i]);
}

/**
 * The last frontier of an agent, reused while nothing it depends on changed: the fingerprint covers
 * every work file's inode/size/mtime/ctime (all agents), holon.yaml, the agent's AGENTS.md, the
 * capability cache, the holder and the limit; the entry also records the git checkout and event
 * folders when the evaluation looked at them, and the time window in which no lease ends and no
 * at: condition falls due. Outside any of these it is recomputed, so a hand edit or a `git checkout`
 * is always seen.
 */

// 7: titles out of the graph digest, checked through the answer's title index (frontier-titles.ts);
// 8: priorities too (the index has them, and the channels' counts); 9: a text may be a delta
// (answer-delta.ts), which a build before it would take for an answer's text.
export const CACHE_VERSION = 9;

interface Header {
  v: number;
  /** Fingerprint over the files' keys: a match needs no graph at all. */
  fp: string;
  /** Fingerprint over the loaded graph's content: a match after a body-only edit (progress, evidence). */
  gfp: string;
  from: number | null;
  until: number | null;
  workspace: Workspace | null;
  events: Record<string, string>;
  /** Issue 17: the run records' signature when a budget was evaluated (taken before they were read). */
  spending?: string | null;
  now: string;
  /** The first line of the text file this header belongs to. */
  token: string;
  /**
   * Made by the evaluation that made the answer, kept by the answers patched from it: the first line
   * of the file of the entries its cap left out (frontier-cut.ts), which only a new evaluation changes.
   */
  lineage?: string;
  /** Issue 16: the HEAD the freshness check compared with, and the recorded commits git did not know. */
  git?: { head: string | null; unknown: string[]; objects?: string[] } | null;
  /** A view cut from the default answer (store/frontier-limit.ts): that answer's token. */
  base?: string;
}

export type FrontierHeader = Header;

export interface CachedFrontier {
  header: Header;
  /** The text file's bytes; the answer starts at `start` (after the token line). */
  bytes: Buffer;
  start: number;
  /** Only the file's first bytes were read (readCachedFrontier's `head`). */
  partial: boolean;
  /** The text is stored as a delta of a base (answer-delta.ts): `bytes` is then its text as composed, after the file's token line. */
  delta?: Delta;
}

const statSig = (file: string) => fileKey(file) ?? '-';

/** What was asked for: the per-channel limit and whether not_runnable is listed in full. */
export interface FrontierView {
  limit: number | undefined;
  all: boolean;
}

const viewKey = (v: FrontierView) => `${v.limit ?? 'all'}${v.all ? '-full' : ''}`;

/** Everything but the work items: code, agent, holder, limit, holon.yaml, AGENTS.md, capability cache. */
function baseHash(home: Home, agent: string, holder: string, view: FrontierView): Hash128 {
  const h = new Hash128();
  h.update(`${CACHE_VERSION}\0${VERSION}\0${agent}\0${holder}\0${viewKey(view)}\0`);
  h.update(JSON.stringify(home.config));
  // A rebuilt holon (new evaluator code) never serves an answer of the old one.
  h.update(BUILD_ID);
  h.update(statSig(join(agentDir(home, agent), 'AGENTS.md')));
  h.update(statSig(capabilityCachePath(home)));
  return h;
}

/**
 * The fingerprint of everything the answer was made from that a listing shows: per agent its names and
 * numbers, as the listing's part (work-listing.ts: the digest its snapshot stores, chained with the few
 * numbers stat'ed again that moved, or a SHA-1 of them all). A reused answer then hashes a few hundred
 * bytes, and never loads node:crypto (some 5 ms, a third of its work).
 */
export function frontierFingerprint(home: Home, agent: string, holder: string, view: FrontierView, listings: Listing[]): string {
  const h = baseHash(home, agent, holder, view);
  for (const l of listings) h.update(`\0${l.agent}\0${l.count}\0${l.part}`);
  return h.digest();
}

export function graphFingerprint(home: Home, agent: string, holder: string, view: FrontierView, digest: Record<string, number>): string {
  const h = baseHash(home, agent, holder, view);
  for (const a of Object.keys(digest).sort()) h.update(`\0${a}\0${digest[a]}`);
  return h.digest();
}

/** The files of a stored answer (content-answer.ts restores them from the machine's cache). */
export const answerFiles = (home: Home, agent: string, view: FrontierView) => ({
  text: textPath(home, agent, view), titles: titlesPath(home, agent, view), cut: cutPath(home, agent, view), deps: depsPath(home, agent, view),
});

const cachePath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.json`);
const textPath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.txt`);
/** The answer stored whole that the text, when it is a delta, is a delta of (answer-delta.ts). */
const basePath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.base.txt`);
const titlesPath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.tix`);
const cutPath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.cut`);
const depsPath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.dep`);

/** A cache file's bytes after its first line, where that line is `line` (an answer's token or lineage); null otherwise. */
export function afterFirstLine(path: string, line: string): Buffer | null {
  try {
    const buf = readFileSync(path);
    const nl = buf.indexOf(10);
    return nl >= 0 && buf.toString('utf8', 0, nl) === line ? buf.subarray(nl + 1) : null;
  } catch {
    return null;
  }
}

/** A file of the answer's token or lineage `line`: the rest `parse`'s (null where it does not parse). */
function readLineage<T>(path: string, line: string | undefined, parse: (rest: Buffer) => T | null): T | null {
  const rest = line ? afterFirstLine(path, line) : null;
  try {
    return rest && parse(rest);
  } catch {
    return null;
  }
}

/** A new answer's token or lineage (16 hex digits: the layout of an index after its first line depends on that length). */
export const newToken = () => randomBytes(8).toString('hex');

/** What the verdicts of the answer under `lineage` read (frontier-deps.ts), or null. */
export const readDeps = (home: Home, agent: string, view: FrontierView, lineage: string | undefined): DepIndex | null =>
  readLineage(depsPath(home, agent, view), lineage, parseDeps);

/** The entries left out of the answer under `lineage` (frontier-cut.ts), or null. */
export const readCut = (home: Home, agent: string, view: FrontierView, lineage: string | undefined): CutIndex | null =>
  readLineage(cutPath(home, agent, view), lineage, parseCut);

export function storeCut(home: Home, agent: string, view: FrontierView, lineage: string, cut: CutIndex): void {
  const line = `${lineage}\n`;
  writeCache(cutPath(home, agent, view), [line, ...cutParts(cut, Buffer.byteLength(line))], join(home.local, 'tmp'));
}

/** The title index stored with the answer `c` (the same token), or null. */
export const readTitleIndex = (home: Home, agent: string, view: FrontierView, c: CachedFrontier): TitleIndex | null =>
  readLineage(titlesPath(home, agent, view), c.header.token, parseTitleIndex);

/**
 * The last answer: a small header file (fingerprints, validity) and the text as it was printed, in its
 * own file that starts with a random token line the header names. A call that only learns new file keys
 * (a progress note) rewrites the header, not megabytes of text; a header and a text written by two
 * different calls never pair up, since their tokens differ.
 */
export function readCachedFrontier(home: Home, agent: string, view: FrontierView, head?: number): CachedFrontier | null {
  try {
    const header = JSON.parse(readFileSync(cachePath(home, agent, view), 'utf8')) as Header;
    if (header.v !== CACHE_VERSION) return null;
    // Bytes, never decoded: at 50,000 items the answer is megabytes, and decoding it, setting `now` in
    // a string copy and encoding it again for stdout cost several times what reading it does.
    // (At least the token line and the mark of a delta: the heads asked for are kilobytes anyway.)
    const { bytes, partial } = head === undefined ? { bytes: readFileSync(textPath(home, agent, view)), partial: false } : readStart(textPath(home, agent, view), Math.max(head, 256));
    const nl = bytes.indexOf(10);
    if (nl < 0 || bytes.toString('utf8', 0, nl) !== header.token) return null;
    if (!isDelta(bytes.subarray(nl + 1))) return { header, bytes, start: nl + 1, partial };
    return composedStart(home, agent, view, header, head);
  } catch {
    return null;
  }
}

/**
 * The answer under `header` stored as a delta: its text as composed from its base, whole or its first
 * `head` bytes, after its token line; null where the delta or its base is not that answer's any more.
 */
function composedStart(home: Home, agent: string, view: FrontierView, header: Header, head: number | undefined): CachedFrontier | null {
  const text = openStored(home, agent, view, header.token);
  if (!text?.delta) {
    text?.close();
    return null;
  }
  try {
    const line = Buffer.from(`${header.token}\n`);
    const end = head === undefined ? text.length : Math.min(head, text.length);
    return { header, bytes: Buffer.concat([line, text.bytes(0, end)]), start: line.length, partial: end < text.length, delta: text.delta };
  } finally {
    text.close();
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
  return deltaOver(home, agent, view, whole.subarray(line.length));
}

/** The text of a delta (the bytes after a text file's token line) over its base, with `known` read already; null where it cannot be read. */
function deltaOver(home: Home, agent: string, view: FrontierView, rest: Buffer, known?: Buffer): (StoredText & { delta: Delta }) | null {
  const delta = parseDelta(rest);
  const path = basePath(home, agent, view);
  const base = delta && openBase(path, delta.base);
  if (!delta || !base) return null;
  const text = deltaText(delta, path, base, known);
  if (!text) base.close();
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
  return rest && isDelta(rest) ? wholeOfDelta(rest, basePath(home, agent, view)) : rest;
}

/**
 * The text of stored answer `c` (the same token), to be read where it is used: what was read of it, or
 * its file (answer-text.ts); null when another answer was stored since `c` was read.
 */
export function storedText(home: Home, agent: string, view: FrontierView, c: CachedFrontier): StoredText | null {
  const known = c.bytes.subarray(c.start);
  if (c.delta) {
    // (Its base opened again: the delta's own bytes are in `c.delta`, views of the file as it was read.)
    const path = basePath(home, agent, view);
    const base = openBase(path, c.delta.base);
    const text = base && deltaText(c.delta, path, base, known);
    if (base && !text) base.close();
    return text;
  }
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

/** Whether the inputs outside the fingerprints are as they were: the clock window, the checkout, events. */
export function stillValid(home: Home, h: Header, nowMs: number, cwd: string): boolean {
  if ((h.from != null && nowMs < h.from) || (h.until != null && nowMs >= h.until)) return false;
  if (h.workspace && JSON.stringify(readWorkspace(cwd)) !== JSON.stringify(h.workspace)) return false;
  for (const [a, sig] of Object.entries(h.events)) if (eventsSignature(home, a) !== sig) return false;
  if (h.spending != null && spendingSignature(home) !== h.spending) return false;
  if (h.git && !gitUnchanged(h.git, cwd)) return false;
  return true;
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

/**
 * Stores a new answer: its text under a new token, then the header naming it. A header without a
 * lineage is a new evaluation's: it gets one, and the entries its cap left out are stored under it.
 * Returns the token, and whether the text was written.
 */
export function storeFrontier(home: Home, agent: string, view: FrontierView, h: Omit<Header, 'v' | 'token'>, text: string | Uint8Array | Iterable<Uint8Array> | Patched, titles: TitleIndex | null, deps?: DepIndex | null): StoredAs {
  const token = newToken();
  const lineage = h.lineage ?? newToken();
  const tmp = join(home.local, 'tmp');
  const path = textPath(home, agent, view);
  // Parts given one at a time (a generator's may share one buffer: see answer-text.ts partChunks).
  function* parts() {
    yield token + '\n';
    if (typeof text === 'string' || text instanceof Uint8Array) yield text;
    else if (isPatched(text)) yield* partChunks(text.parts, text.src);
    else yield* text;
  }
  // A patched answer as a delta of the one it was patched from, where it can be (answer-delta.ts).
  const delta = isPatched(text) && writeDelta(path, basePath(home, agent, view), tmp, token, text.parts, text.src);
  if (delta) trace('frontier: stored as a delta of an answer stored whole');
  const written = delta || writeCache(path, parts(), tmp);
  if (titles?.cut) storeCut(home, agent, view, lineage, titles.cut);
  // Only with a new lineage: the answers of an older one keep theirs.
  if (deps && !h.lineage) writeCache(depsPath(home, agent, view), [`${lineage}\n`, ...depParts(deps)], join(home.local, 'tmp'));
  // Without one, the answer is reused only while no work file changes (see frontier-titles.ts).
  if (titles) storeTitleIndex(home, agent, view, token, titles);
  restampFrontier(home, agent, view, { ...h, token, lineage });
  return { token, lineage, written };
}

/** A patched answer: its parts, ranges of the stored answer `src` among them. */
export interface Patched {
  parts: Part[];
  src: StoredText;
}

const isPatched = (t: unknown): t is Patched => typeof t === 'object' && t !== null && 'src' in t && 'parts' in t;

/** A stored answer's token, and whether its text was written (a read-only home, a full disk: not; its header then names a text no file has). */
export interface StoredAs {
  token: string;
  lineage: string;
  written: boolean;
}

/** The title index of the answer under `token`. */
export function storeTitleIndex(home: Home, agent: string, view: FrontierView, token: string, titles: TitleIndex): void {
  writeCache(titlesPath(home, agent, view), [token + '\n', ...titleIndexBytes(titles, Buffer.byteLength(token) + 1)], join(home.local, 'tmp'));
}

/** The same answer under a new header (new file keys after a change that cannot move it). */
export function restampFrontier(home: Home, agent: string, view: FrontierView, h: Omit<Header, 'v'>): void {
  writeCache(cachePath(home, agent, view), JSON.stringify({ ...h, v: CACHE_VERSION }), join(home.local, 'tmp'));
}

/**
 * The header of a new answer. Every signature in it comes from `used`, where the evaluation took it
 * before reading what it signs (see InputUse): none is taken here, after the reads.
 */
export function headerFor(fp: string, gfp: string, bounds: { from: number; until: number }, used: InputUse, now: string): Omit<Header, 'v' | 'token'> {
  return {
    fp, gfp, from: Number.isFinite(bounds.from) ? bounds.from : null, until: Number.isFinite(bounds.until) ? bounds.until : null,
    workspace: used.workspace, events: { ...used.eventSigs }, now, spending: used.spendingSig,
    git: used.head === undefined ? null : { head: used.head, unknown: used.unknownCommits, ...(used.unknownCommits.length ? { objects: used.unknownObjects } : {}) },
  };
}
