import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { VERSION } from '../version.js';
import { BUILD_ID } from '../build-id.js';
import { writeCache } from './cache-file.js';
import { capabilityCachePath } from './capabilities.js';
import type { ContentSource } from './content-cache.js';
import { restampFrontier } from './frontier-cache.js';
import { afterFirstLine, answerFiles, CACHE_VERSION, newToken, type FrontierHeader, type FrontierView } from './frontier-files.js';
import { GRAPH_STAMP } from './graph-cache.js';
import { agentDir, type Home } from './home.js';
import { readFully } from './read-fully.js';
import { partChunks, rangeText, TextRange } from './answer-text.js';
import type { StatIndex } from './stat-index.js';
import { writeSnapshot } from './graph-index.js';
import type { Listing } from './work-listing.js';

/**
 * The frontier's default answer kept by content in the machine's cache (cache-dir.ts), so that the
 * first command in a fresh clone or worktree of a state this machine has evaluated before does not
 * evaluate it again (issue 14: "a cache keyed by content that survives a clone").
 *
 * local/ is the home's own, and a new checkout starts without it: its first frontier lists the files,
 * takes their entries from the machine content cache (content-cache.ts), evaluates and writes the
 * answer with its indexes, some 150 ms of cpu at 10,000 items. This cache holds what that call wrote
 * to local/ (the answer's text, its title index, read index and left-out entries, and each agent's
 * snapshot hashes), under a key of everything the answer was made from, by content:
 *
 * - every work file of every agent, by name and by the blob id and size git's index records for it,
 *   and only where git vouches for each file (git-index.ts: its four stat numbers are the ones git
 *   recorded, not racily clean, a plain stage-0 regular file; not a link): a file git cannot vouch
 *   for (changed and not committed, untracked) gives no key, and the answer is evaluated;
 * - holon.yaml as loaded, the agent's AGENTS.md and the capability cache by their bytes, the agent,
 *   the holder, and the build (CACHE_VERSION, VERSION, BUILD_ID, GRAPH_STAMP); only the default
 *   view (`frontier --json`, what `pick` reads and a person's view is cut from) is kept;
 * - the rest of the answer's header as the evaluation made it (the clock window, the event records,
 *   the run records, HEAD and unknown commits): checked by frontier-cache.ts stillValid, as for an
 *   answer of local/. Those signatures that are stat keys (event records, run records, object
 *   folders) are this checkout's: in another one they differ, and the answer is evaluated.
 *
 * Kept only from a load whose every entry is known to be its blob's parse (graph-index.ts byBlob: a
 * file changed between the listing and its read is not), where the answer names nothing of the
 * checkout (no record problem: a problem names its file's path) and the evaluation read neither the
 * checkout (`workspace`) nor how a recorded commit relates to HEAD (`ancestry`: a shallow clone
 * knows fewer commits, and no signature covers that). One file per
 * repository and agent (the last state kept); written by temp file + rename; a torn, foreign or
 * unreadable file, or a key that differs, costs the evaluation, never an error.
 *
 * Restored, it is written to local/ as an evaluation would have written it (a new token and lineage,
 * the snapshots from this checkout's listing with the kept hashes, the header with this call's file
 * keys and the graph fingerprint of the kept digests): the next calls reuse or patch it as they would
 * have. Only the graph cache is not written, as after a load from the content cache.
 *
 * A nearby state (the same key but for the work files, the same names, at most MOVED_MAX of the files
 * of another blob: the next commit) is restored as a local/ before a `git pull` is: the files of
 * another blob stored in the snapshot as never matching and the header under no file keys, so the
 * caller reads those files again and reuses, patches or evaluates the answer as after any pull
 * (ops/frontier.ts). Sound by the same argument as that pull: every number the snapshot keeps is a
 * file whose blob is the kept state's, and the answer is never reused by file keys.
 */

/**
 * 1: the answer's text, title index, read index, left-out entries and snapshot hashes; 2: the key in
 * two parts, and each agent's names and blob ids (a state a few files from the kept one restores it as
 * after a pull).
 */
const FORMAT = 2;

/** The kept answer's header line: what it was made from, and the sections after it in order. */
interface Head {
  format: number;
  /** Everything of the key but the work files. */
  base: string;
  key: string;
  header: Omit<FrontierHeader, 'v' | 'fp' | 'gfp' | 'token' | 'lineage' | 'base'>;
  /**
   * [name, byte length]: `tix`, `dep`, `cut` (each file's bytes after its first line), `snap AGENT`
   * (hashes, titles, prios, sums as f64), `names AGENT` (the listing's names, '\n' between them) and
   * `blobs AGENT` (six u32 a file: size and blob id), `text`.
   */
  sections: Array<[string, number]>;
}

/** Where an agent's default answer of a repository is kept, and its key (null: none can be made). */
export interface ContentAnswerKey {
  path: string;
  /** Everything of the key but the work files: config, AGENTS.md, capabilities, agent, holder, build. */
  base: string;
  key: string;
  tmp: string;
  /** Per listing: its agent, names ('\n' between them) and blob words (six a file). */
  files: Array<{ agent: string; names: string; blobs: Uint32Array }>;
}

/** Bytes of a small file, or '-' when it cannot be read (an absent capability cache). */
function bytesOf(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return '-';
  }
}

/**
 * The key of the answer for these listings, by content; null where git does not vouch for every
 * listed file (or a name holds a newline, which no snapshot keeps), or there is no machine cache.
 */
export function contentAnswerKey(home: Home, agent: string, holder: string, listings: Listing[], src: ContentSource | string): ContentAnswerKey | null {
  if (typeof src === 'string') return null;
  // SHA-1, natively: a JS hash of 10,000 files' names and blob ids cost 19 ms unoptimized (node:crypto
  // is loaded already: a full listing's part is a SHA-1 too, work-listing.ts).
  const b = createHash('sha1');
  b.update(`content-answer ${FORMAT}\0${CACHE_VERSION}\0${VERSION}\0${BUILD_ID}\0${GRAPH_STAMP}\0${agent}\0${holder}\0`);
  for (const part of [JSON.stringify(home.config), bytesOf(join(agentDir(home, agent), 'AGENTS.md')), bytesOf(capabilityCachePath(home))]) b.update(`${part.length}\0`).update(part);
  const base = b.digest('hex');
  const h = createHash('sha1').update(base);
  const files: ContentAnswerKey['files'] = [];
  for (const l of listings) {
    if (!l.count) {
      h.update(`\0${l.agent}\0${0}\0`);
      files.push({ agent: l.agent, names: '', blobs: new Uint32Array(0) });
      continue;
    }
    const work = src.git.work(l.agent);
    if (!work || l.linked.size || l.irregular.size) return null;
    const stats = l.stats;
    for (let i = 0; i < l.count; i++) if (!work.vouches(i, stats)) return null;
    // A name with a newline in it: no snapshot keeps it (graph-index.ts), and none is restored.
    const names = l.joined;
    let lines = 0;
    for (let at = names.indexOf('\n'); at >= 0; at = names.indexOf('\n', at + 1)) lines++;
    if (lines !== l.count - 1) return null;
    const blobs = work.blobWords();
    h.update(`\0${l.agent}\0${l.count}\0${Buffer.byteLength(names)}\0`).update(names).update(new Uint8Array(blobs.buffer, 0, blobs.byteLength));
    files.push({ agent: l.agent, names, blobs });
  }
  return { path: join(src.dir, `answer-${src.repo}-${agent}.bin`), base, key: h.digest('hex'), tmp: join(src.dir, 'tmp'), files };
}

/** What an evaluation just stored in local/ (frontier-cache.ts storeFrontier), to keep by content. */
export interface Evaluated {
  header: KeptHeader;
  token: string;
  lineage: string;
  text: Uint8Array[];
  /** The loaded graph's snapshots (graph-index.ts): each agent's hashes, in listing order. */
  snapshots: Record<string, Pick<StatIndex, 'count' | 'hashes' | 'titles' | 'prios' | 'sums'>>;
}

export type KeptHeader = Head['header'];

const f64 = (a: Float64Array, count: number) => new Uint8Array(a.buffer, a.byteOffset, count * 8);

/**
 * Keeps the answer an evaluation stored in local/ under `ck`: its text as it was encoded, its indexes
 * read back from their files (each only if its first line is still this answer's), the snapshots' hashes.
 */
export function keepContentAnswer(home: Home, agent: string, view: FrontierView, ck: ContentAnswerKey, listings: Listing[], e: Evaluated): void {
  const files = answerFiles(home, agent, view);
  const parts: Uint8Array[] = [];
  const sections: Head['sections'] = [];
  const add = (name: string, bytes: Uint8Array[]) => {
    sections.push([name, bytes.reduce((n, b) => n + b.length, 0)]);
    parts.push(...bytes);
  };
  for (const [name, path, line] of [['tix', files.titles, e.token], ['dep', files.deps, e.lineage], ['cut', files.cut, e.lineage]] as const) {
    const body = afterFirstLine(path, line);
    if (body) add(name, [body]);
  }
  for (const l of listings) {
    const s = e.snapshots[l.agent];
    if (!s || s.count !== l.count) return;
    add(`snap ${l.agent}`, [f64(s.hashes, l.count), f64(s.titles, l.count), f64(s.prios, l.count), f64(s.sums, 3)]);
  }
  for (const f of ck.files) add(`names ${f.agent}`, [Buffer.from(f.names)]), add(`blobs ${f.agent}`, [new Uint8Array(f.blobs.buffer, f.blobs.byteOffset, f.blobs.byteLength)]);
  add('text', e.text);
  const line = JSON.stringify({ format: FORMAT, base: ck.base, key: ck.key, header: e.header, sections } satisfies Head) + '\n';
  // (A head findContentAnswer would not read whole: none kept.)
  if (Buffer.byteLength(line) > HEAD_MAX) return;
  // Synced: nothing in its sections says they were written whole (a local answer has its token line).
  writeCache(ck.path, [line, ...parts], ck.tmp, true);
}

/** The answer kept under `ck` (or a nearby state's), found valid now: how far it is, and `restore`. */
export interface KeptAnswer {
  /**
   * How many listed files have another blob than the kept state's (0: the same state). Restored, their
   * snapshot numbers never match, and the call goes on as after a `git pull` in a home whose local/
   * was at the kept state: those files are read again, and the answer patched or evaluated.
   */
  moved: number;
  /**
   * Writes it to local/ as the evaluation that made it wrote it: the snapshots of these listings with
   * the kept hashes, the text and indexes under a new token and lineage, then the header (this call's
   * file keys `fp`, and `gfp` of the kept digests). False where any of it could not be read or written.
   */
  restore: (fp: string, gfpOf: (digest: Record<string, number>) => string) => boolean;
  close: () => void;
}

/** The first line's most: a header names a few signatures. */
const HEAD_MAX = 64 * 1024;

/**
 * The answer kept under `ck` (or a nearby state's) whose header `valid` accepts, or null (none, another
 * key, torn, not valid now). Its file stays open until `close`.
 */
export function findContentAnswer(home: Home, agent: string, view: FrontierView, ck: ContentAnswerKey, listings: Listing[], valid: (h: KeptHeader) => boolean): KeptAnswer | null {
  let fd: number;
  try {
    fd = openSync(ck.path, 'r');
  } catch {
    return null;
  }
  let kept = false;
  try {
    const size = fstatSync(fd).size;
    const first = Buffer.allocUnsafe(Math.min(size, HEAD_MAX));
    if (!readFully(fd, first, 0, first.length, 0)) return null;
    const nl = first.indexOf(10);
    if (nl < 0) return null;
    const head = JSON.parse(first.toString('utf8', 0, nl)) as Head;
    if (head.format !== FORMAT || head.base !== ck.base || !Array.isArray(head.sections)) return null;
    const where = new Map<string, [number, number]>();
    let at = nl + 1;
    for (const [name, len] of head.sections) {
      where.set(name, [at, len]);
      at += len;
    }
    // Torn: the sections do not end where the file does.
    if (at !== size || !where.has('text')) return null;
    // (Before the names and blob ids of a nearby state are read: megabytes at 50,000 files.)
    if (!valid(head.header)) return null;
    const moved = head.key === ck.key ? new Map<string, number[]>() : movedSince(fd, where, ck);
    if (!moved) return null;
    kept = true;
    const restore = (fp: string, gfpOf: (digest: Record<string, number>) => string) => {
      try {
        return restoreFrom(home, agent, view, fd, where, listings, head.header, moved, fp, gfpOf);
      } catch {
        return false;
      }
    };
    let count = 0;
    for (const m of moved.values()) count += m.length;
    return { moved: count, restore, close: () => closeSync(fd) };
  } catch {
    return null;
  } finally {
    if (!kept) closeSync(fd);
  }
}

/** Past this share of the files changed, a kept state is not restored: the call evaluates anyway. */
const MOVED_MAX = 1 / 8;

/** Section `name` of the kept file, read (into `into`'s memory where given); null where it is missing, of another length than `len`, or cut short. */
function section(fd: number, where: Map<string, [number, number]>, name: string, len?: number, into?: Uint8Array): Uint8Array | null {
  const w = where.get(name);
  if (!w || (len !== undefined && w[1] !== len)) return null;
  const buf = into ?? Buffer.allocUnsafe(w[1]);
  return readFully(fd, buf, 0, w[1], w[0]) ? buf : null;
}

/**
 * Per listing, the positions whose blob is not the kept state's: null where the kept state has other
 * agents or other names (a file come or gone: the patch would not apply), or too many changed.
 */
function movedSince(fd: number, where: Map<string, [number, number]>, ck: ContentAnswerKey): Map<string, number[]> | null {
  const read = (name: string, len: number) => section(fd, where, name, len) as Buffer | null;
  let agents = 0;
  for (const name of where.keys()) if (name.startsWith('names ')) agents++;
  if (agents !== ck.files.length) return null;
  const moved = new Map<string, number[]>();
  let files = 0;
  let count = 0;
  for (const f of ck.files) {
    const names = Buffer.from(f.names);
    const keptNames = read(`names ${f.agent}`, names.length);
    const keptBlobs = read(`blobs ${f.agent}`, f.blobs.byteLength);
    if (!keptNames || !keptBlobs || !keptNames.equals(names)) return null;
    const now = Buffer.from(f.blobs.buffer, f.blobs.byteOffset, f.blobs.byteLength);
    const m: number[] = [];
    // Six words (24 bytes) a file: compared a file at a time only where the whole differs.
    if (!keptBlobs.equals(now)) for (let i = 0, n = f.blobs.length / 6; i < n; i++) if (keptBlobs.compare(now, 24 * i, 24 * i + 24, 24 * i, 24 * i + 24) !== 0) m.push(i);
    moved.set(f.agent, m);
    files += f.blobs.length / 6;
    count += m.length;
  }
  return count > 0 && count <= files * MOVED_MAX ? moved : null;
}

function restoreFrom(home: Home, agent: string, view: FrontierView, fd: number, where: Map<string, [number, number]>, listings: Listing[], header: KeptHeader, moved: Map<string, number[]>, fp: string, gfpOf: (digest: Record<string, number>) => string): boolean {
  const tmp = join(home.local, 'tmp');
  const digest: Record<string, number> = {};
  const snapshots: Array<[Listing, StatIndex]> = [];
  for (const l of listings) {
    const c = l.count;
    // Its own aligned memory (a Buffer of node's pool may sit at any offset).
    const a = new Float64Array(3 * c + 3);
    if (!section(fd, where, `snap ${l.agent}`, a.byteLength, new Uint8Array(a.buffer))) return false;
    // The listing's numbers, a racy file's as never matching (as graph-index.ts loadListed stores
    // them), and a file of another blob than the kept state's too: it is read again.
    let stats = l.stats.subarray(0, 4 * c);
    const m = moved.get(l.agent) ?? [];
    if (l.racy.size || m.length) {
      stats = Float64Array.from(stats);
      if (l.racy.size) for (let i = 0; i < c; i++) if (l.racy.has(l.nameAt(i))) stats.fill(NaN, 4 * i, 4 * i + 4);
      for (const i of m) stats.fill(NaN, 4 * i, 4 * i + 4);
    }
    const sums = a.subarray(3 * c, 3 * c + 3);
    snapshots.push([l, { names: l.joined, count: c, stats, hashes: a.subarray(0, c), titles: a.subarray(c, 2 * c), prios: a.subarray(2 * c, 3 * c), sums, mark: l.mark }]);
    digest[l.agent] = sums[0];
  }
  const files = answerFiles(home, agent, view);
  const token = newToken();
  const lineage = newToken();
  const [from, len] = where.get('text')!;
  // Copied through answer-text.ts's one small buffer, from the kept file (its opener closes it).
  const text = rangeText(fd, from, len);
  for (const [l, idx] of snapshots) writeSnapshot(home, l, idx);
  if (!writeCache(files.text, partChunks([Buffer.from(`${token}\n`), new TextRange(0, len)], text), tmp)) return false;
  for (const [name, path, line] of [['tix', files.titles, token], ['dep', files.deps, lineage], ['cut', files.cut, lineage]] as const) {
    if (!where.has(name)) continue;
    const body = section(fd, where, name);
    if (!body) return false;
    writeCache(path, [`${line}\n`, body], tmp);
  }
  restampFrontier(home, agent, view, { ...header, fp, gfp: gfpOf(digest), token, lineage });
  return true;
}

