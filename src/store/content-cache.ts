import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeCache } from './cache-file.js';
import { machineCacheDir } from './cache-dir.js';
import { readGitIndex, type GitIndex, type WorkIndex } from './git-index.js';
import { sha1Hex } from './sha1.js';
import type { Listing } from './work-listing.js';

/**
 * What the frontier reads of a work file (its graph entry, graph-index.ts), by the file's content:
 * a cache of the machine's that survives a clone. local/ is the home's own and a fresh clone starts
 * without it; this one is shared by every clone and worktree of a repository on the machine, so the
 * first command in a new one parses only the files git cannot vouch for (git-index.ts).
 *
 * Where: the machine's cache folder (cache-dir.ts; `HOLON_CACHE_DIR=off` turns it off). One file per
 * repository (its origin URL, else its git folder) and agent, `content-REPO-AGENT.json`, in the shape
 * of the graph cache's base, `{version, build, entries: {NAME: entry}}` (one entry a line), except
 * that an entry's first element is `BLOB:SIZE` (the file's git blob id and length) where the graph
 * cache has the file's stat key.
 *
 * Why an entry taken from it is the one a parse would give (docs/frontier.md, "The machine content cache"):
 * - Written only for text whose own blob id holon computed when it parsed it (sha1 of
 *   `blob LENGTH\0TEXT`) and found equal to the blob git's index names for that file: the entry is
 *   the parse of exactly that blob's bytes, whatever happened to the file before or after the read.
 *   A problem entry (it names its file's path, which is this checkout's) is never written.
 * - Taken only for a file git vouches for (git-index.ts: its stat numbers equal what git recorded,
 *   not racily clean, a plain stage-0 entry; here also not a link or an irregular file) whose blob
 *   and length are the entry's key: the file's bytes are that blob's bytes. (A checkout that converts
 *   line ends changes the length; a clean/smudge filter that changes bytes but not the length is the
 *   one thing this does not see.)
 * - An entry depends on nothing else: the file name (the id), the agent (one file per agent) and the
 *   build (the file carries GRAPH_STAMP; another build's file is not read).
 * Written by temp file + rename, only when a load learned an entry it did not have. A torn, foreign,
 * unreadable or unwritable cache costs only the parses it would have saved, never a wrong answer.
 */

/** The repository's name for the cache: its origin URL when it has one, else its git folder. */
function repositoryName(commonDir: string): string {
  try {
    const m = /\[remote "origin"\][^[]*?^\s*url\s*=\s*(.+)$/m.exec(readFileSync(join(commonDir, 'config'), 'utf8'));
    if (m) return `origin ${m[1].trim()}`;
  } catch {
    // No config: the folder.
  }
  return `dir ${commonDir}`;
}

/** The machine cache for one load: git's index (read once for every agent) and where the files are. */
export interface ContentSource {
  git: GitIndex;
  dir: string;
  repo: string;
}

/** Null (and why, for the trace) when there is no cache or git's index gives no answer. */
export function contentSource(homeDir: string, listings: ReadonlyArray<{ agent: string; names: string[] }>, env: NodeJS.ProcessEnv = process.env): ContentSource | string {
  const dir = machineCacheDir(env);
  if (!dir) return 'HOLON_CACHE_DIR=off';
  const git = readGitIndex(homeDir, listings, env);
  if (!git) return "no git index to vouch for files";
  return { git, dir, repo: sha1Hex(repositoryName(git.commonDir)).slice(0, 16) };
}

/** An entry as the graph cache keeps it: [key, slim or 'D' or 0, problem or 0, content hash, title hash, ...]. */
type Entry = [string, ...unknown[]];

/** Whether a value read from the file has an entry's shape (with no problem), so a corrupt file costs parses only. */
const usable = (e: unknown): e is Entry =>
  Array.isArray(e) && e.length === 6 && typeof e[0] === 'string' && e[2] === 0 && typeof e[3] === 'number' && typeof e[4] === 'number' && typeof e[5] === 'number' && (e[1] === 'D' || (typeof e[1] === 'object' && e[1] !== null));

/**
 * One agent's content cache during one load of its listing (graph-index.ts loadListed): `entries` is
 * the file's parsed object (the graph cache may adopt it as its own), `vouched` says whether git
 * vouches for a listed file, `take` gives the cached entry of its blob, `learn` notes a parsed text,
 * and `save` writes the cache again when anything was learned.
 */
export class AgentContent {
  readonly entries: Record<string, unknown> | null;
  private readonly work: WorkIndex | undefined;
  /** Non-zero at each listing index whose entry is known to be its blob's (taken, parsed, a vouched graph-cache hit); 2: new to the cache. */
  private readonly known: Uint8Array;
  private readonly path: string;
  taken = 0;
  learned = 0;

  constructor(private readonly src: ContentSource, agent: string, private readonly version: number, private readonly stamp: string, count: number) {
    this.path = join(src.dir, `content-${src.repo}-${agent}.json`);
    this.work = src.git.work(agent);
    this.known = new Uint8Array(count);
    this.entries = this.work ? readEntries(this.path, version, stamp) : null;
  }

  /** Whether git vouches that the listed file at `i` is what its index entry recorded. */
  vouched(listing: Listing, name: string, i: number): boolean {
    return this.work !== undefined && this.work.vouches(i, listing.stats) && !listing.linked.has(name) && !listing.irregular.has(name);
  }

  /** A graph-cache entry whose key matches a file git vouches for: that blob's entry. */
  keep(i: number): void {
    this.known[i] = 1;
  }

  /** The cached entry of the blob git vouches the file at `i` is, or null. Its first element is for the caller to set. */
  take(name: string, i: number): Entry | null {
    const e = this.entries?.[name];
    if (!usable(e) || e[0] !== this.work!.blobKey(i)) return null;
    this.known[i] = 1;
    this.taken++;
    return e;
  }

  /** A file's text as it was just parsed: its entry is its blob's if the text is the blob git's index names. */
  learn(name: string, i: number, text: string): void {
    if (!this.work?.has(i)) return;
    const size = Buffer.byteLength(text);
    const key = this.work.blobKey(i);
    if (`${sha1Hex(`blob ${size}\0${text}`)}:${size}` !== key) return;
    // Learned (2) only if the cache did not hold that blob's entry already (a checkout whose index has
    // stale numbers, until a `git status` refreshes them, is parsed every time: no write for that).
    const had = this.entries?.[name];
    this.known[i] = usable(had) && had[0] === key ? 1 : 2;
    if (this.known[i] === 2) this.learned++;
  }

  /** Whether every listed file's entry is known to be its blob's (taken, parsed from that blob's text, or a graph-cache hit git vouches for). */
  allKnown(): boolean {
    return !this.known.includes(0);
  }

  /** A parse that gave a problem: never written (it names its file's path, this checkout's), so not known. */
  unlearn(i: number): void {
    if (this.known[i] === 2) this.learned--;
    this.known[i] = 0;
  }

  /** Writes the entries of every known file as the cache (in parts: megabytes at 50,000), if anything was learned. */
  save(names: string[], entries: Record<string, Entry>): void {
    if (!this.learned) return;
    const { known, src } = this;
    const work = this.work;
    if (!work) return;
    const w: WorkIndex = work;
    const version = this.version;
    const stamp = this.stamp;
    function* parts(): Generator<string> {
      yield head(version, stamp);
      let part = '';
      let n = 0;
      for (let i = 0; i < names.length; i++) {
        const e = known[i] ? entries[names[i]] : undefined;
        if (!e || !w.has(i) || e[2] !== 0) continue;
        // Whatever the entry holds after its key, copied as it is.
        // One entry a line (see readEntries).
        part += `${n ? ',\n' : '\n'}${JSON.stringify(names[i])}:${JSON.stringify([w.blobKey(i), ...e.slice(1)])}`;
        if (++n % 2000 === 0) {
          yield part;
          part = '';
        }
      }
      yield `${part}\n}}\n`;
    }
    writeCache(this.path, parts(), join(src.dir, 'tmp'));
  }
}

const head = (version: number, stamp: string) => `{"version":${version},"build":${JSON.stringify(stamp)},"entries":{`;

/** Up to this size a content cache is parsed whole (10,000 items make some 1.8 MB). */
const WHOLE = 4 << 20;

/**
 * The file's entries, or null: none, torn, another build's (told by its head, before any parse). It
 * is JSON with one entry a line. A big one is read 64 KB at a time and parsed a window of lines at a
 * time: at 50,000 items, the whole text as one 8 MB string, live beside what it parses to, raised a
 * cold frontier's peak memory by tens of MB. A small one is parsed whole: copying every window's
 * entries into one object cost a fifth of the parse.
 */
export function readEntries(path: string, version: number, stamp: string, whole = WHOLE): Record<string, unknown> | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const h = Buffer.from(head(version, stamp) + '\n');
    const size = fstatSync(fd).size;
    let buf = Buffer.allocUnsafe(size <= whole ? size : 1 << 16);
    let len = readSync(fd, buf, 0, buf.length, 0);
    if (len < h.length || h.compare(buf, 0, h.length) !== 0) return null;
    if (size <= whole) {
      // The end is its closing line or the file is torn (JSON.parse then throws: null below).
      while (len < size) {
        const got = readSync(fd, buf, len, size - len, len);
        if (got <= 0) return null;
        len += got;
      }
      const parsed = JSON.parse(buf.toString('utf8', 0, len)) as { entries?: unknown };
      return typeof parsed.entries === 'object' && parsed.entries !== null && !Array.isArray(parsed.entries) ? (parsed.entries as Record<string, unknown>) : null;
    }
    const entries: Record<string, unknown> = {};
    let from = h.length;
    let pos = len;
    for (;;) {
      const last = buf.lastIndexOf(10, len - 1);
      if (last >= from) {
        // Whole lines `"NAME":[...],`: the last one's comma (if any) dropped for the parse.
        let text = buf.toString('utf8', from, last);
        if (text.endsWith('}}')) {
          text = text.slice(0, -2).trimEnd();
          if (text) Object.assign(entries, JSON.parse(`{${text}}`));
          return entries;
        }
        if (text.endsWith(',')) text = text.slice(0, -1);
        if (text) Object.assign(entries, JSON.parse(`{${text}}`));
        from = last + 1;
      }
      // The rest of the window (a line begun) first, then more of the file.
      if (from > 0) {
        buf.copy(buf, 0, from, len);
        len -= from;
        from = 0;
      }
      if (len === buf.length) {
        const bigger = Buffer.allocUnsafe(2 * buf.length);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const got = readSync(fd, buf, len, buf.length - len, pos);
      // The end without its closing line: torn.
      if (got <= 0) return null;
      len += got;
      pos += got;
    }
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
