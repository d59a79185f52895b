import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Workspace } from '../core/frontier.js';
import type { Home } from './home.js';
import { randomBytes } from './random.js';

/**
 * The files a stored frontier answer is kept in under local/cache, one set per agent and view: the
 * header (`.json`: fingerprints, validity, the token of its text), the text (`.txt`, whole or a delta
 * of `.base.txt`: answer-file.ts), and beside them the indexes patches read (`.tix`, `.cut`, `.dep`),
 * each starting with the token or lineage line of the answer it belongs to (frontier-cache.ts).
 */

// 7: titles out of the graph digest, checked through the answer's title index (frontier-titles.ts);
// 8: priorities too (the index has them, and the channels' counts); 9: a text may be a delta
// (answer-delta.ts), which a build before it would take for an answer's text.
export const CACHE_VERSION = 9;

export interface FrontierHeader {
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

/** What was asked for: the per-channel limit and whether not_runnable is listed in full. */
export interface FrontierView {
  limit: number | undefined;
  all: boolean;
}

export const viewKey = (v: FrontierView) => `${v.limit ?? 'all'}${v.all ? '-full' : ''}`;

/** The files of a stored answer (content-answer.ts restores them from the machine's cache). */
export const answerFiles = (home: Home, agent: string, view: FrontierView) => ({
  text: textPath(home, agent, view), titles: titlesPath(home, agent, view), cut: cutPath(home, agent, view), deps: depsPath(home, agent, view),
});

export const cachePath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.json`);
export const textPath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.txt`);
/** The answer stored whole that the text, when it is a delta, is a delta of (answer-delta.ts). */
export const basePath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.base.txt`);
export const titlesPath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.tix`);
export const cutPath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.cut`);
export const depsPath = (home: Home, agent: string, view: FrontierView) => join(home.local, 'cache', `frontier-${agent}-${viewKey(view)}.dep`);

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
export function readLineage<T>(path: string, line: string | undefined, parse: (rest: Buffer) => T | null): T | null {
  const rest = line ? afterFirstLine(path, line) : null;
  try {
    return rest && parse(rest);
  } catch {
    return null;
  }
}

/** A new answer's token or lineage (16 hex digits: the layout of an index after its first line depends on that length). */
export const newToken = () => randomBytes(8).toString('hex');
