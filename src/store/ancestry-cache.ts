import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ancestry } from '../core/frontier-freshness.js';
import { writeCache } from './cache-file.js';
import type { Home } from './home.js';
import { ancestryOf, objectsSignature, readWorkspace } from './workspace.js';

/**
 * How recorded commits relate to HEAD, remembered per repository in local/cache/ancestry-REPO.json, so
 * the freshness check spawns git once per new commit, not once per commit per command. Commits never
 * change: an ancestor of HEAD stays one, and when HEAD moves forward (the old HEAD is an ancestor of the
 * new one, one git call) every old ancestor is still an ancestor. "Another line" answers are kept only
 * for the HEAD they were asked at (a merge can make them ancestors). An unknown commit is kept with the
 * stat keys of the object folders it would appear in, and asked again once they change (a fetch).
 */

interface CacheFile {
  v: 1;
  head: string;
  ancestors: string[];
  other: string[];
  /** Commits git did not have, with the stat keys of the object folders they would appear in. */
  unknown?: Record<string, string>;
}

export interface AncestryCache {
  ask(commit: string, head: string): Ancestry;
  /** For a commit `ask` found unknown: the objects signature taken before git was asked (or re-checked). */
  objectsBefore(commit: string): string | undefined;
}

export function ancestryCache(home: Home, cwd: string): AncestryCache {
  let path: string | null | undefined;
  let file: CacheFile | null = null;
  let ancestors = new Set<string>();
  let other = new Set<string>();
  let unknown: Record<string, string> = {};
  const load = (head: string) => {
    if (path === undefined) {
      // One file per repository and branch: worktrees on other branches have other HEADs.
      const ws = readWorkspace(cwd);
      path = ws.common ? join(home.local, 'cache', `ancestry-${createHash('sha1').update(`${ws.common}\0${ws.branch ?? ''}`).digest('hex').slice(0, 12)}.json`) : null;
      try {
        if (path) {
          const f = JSON.parse(readFileSync(path, 'utf8')) as CacheFile;
          if (f.v === 1 && typeof f.head === 'string' && Array.isArray(f.ancestors) && Array.isArray(f.other)) file = f;
        }
      } catch {
        // No cache yet, or a broken one: start empty.
      }
      if (file) {
        ancestors = new Set(file.ancestors);
        other = new Set(file.other);
        unknown = file.unknown && typeof file.unknown === 'object' ? file.unknown : {};
      }
    }
    if (file && file.head !== head) {
      // HEAD moved: forward keeps every ancestor (and the old HEAD becomes one); anything else starts over.
      const forward = ancestryOf(cwd, file.head, head) === 'ancestor';
      ancestors = forward ? new Set([...ancestors, file.head]) : new Set();
      other = new Set();
      file = { v: 1, head, ancestors: [...ancestors], other: [] };
      save();
    }
    if (!file) file = { v: 1, head, ancestors: [], other: [] };
  };
  const save = () => {
    if (!path || !file) return;
    writeCache(path, JSON.stringify({ v: 1, head: file.head, ancestors: [...ancestors], other: [...other], unknown }), join(home.local, 'tmp'));
  };
  return {
    ask(commit, head) {
      load(head);
      if (ancestors.has(commit)) return 'ancestor';
      if (other.has(commit)) return 'other';
      // Signed before git is asked: an object fetched during the call changes the folders after this,
      // so the next ask sees a new signature and asks again (signed after, it would stay "unknown").
      const before = objectsSignature(cwd, [commit]);
      if (unknown[commit] && unknown[commit] === before) return 'unknown';
      const a = ancestryOf(cwd, commit, head);
      if (a === 'ancestor' || a === 'other') (a === 'ancestor' ? ancestors : other).add(commit);
      if (a === 'unknown') unknown[commit] = before;
      else delete unknown[commit];
      save();
      return a;
    },
    objectsBefore: (commit) => unknown[commit],
  };
}
