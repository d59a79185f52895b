import { iso } from '../core/time.js';
import type { ContentSource } from '../store/content-cache.js';
import type { Evaluated } from '../store/content-answer.js';
import { graphFingerprint, stillValid } from '../store/frontier-cache.js';
import type { FrontierHeader } from '../store/frontier-files.js';
import { readCachedFrontier } from '../store/answer-file.js';
import type { Listing } from '../store/graph-index.js';
import { trace } from '../store/trace.js';
import type { OpsCtx } from './context.js';
import type { Answer } from './frontier.js';
import { reusedAnswer } from './frontier-patched.js';

/**
 * The default answer kept in the machine's cache by content (store/content-answer.ts), restored to
 * local/ and reused from there; else what the evaluation needs to keep its answer there.
 */
export interface Keeper {
  /** git's index, read for the key: the load takes the content cache's entries by it. */
  src?: ContentSource | string;
  /** Keeps the answer the evaluation stored (null: no key, since git does not vouch for every file). */
  keep: ((e: Evaluated) => void) | null;
}

/**
 * The default answer kept by content, restored to local/ and reused; `again` where the kept state is a
 * few files from this one (restored as a local/ at that state: the caller goes on as after a pull,
 * those files read again, and an evaluation it comes to keeps its answer by the Keeper); else a Keeper.
 */
export async function keptByContent(ctx: OpsCtx, agent: string, holder: string, listings: Listing[], fp: string, head?: number): Promise<Answer | Keeper | { again: Keeper }> {
  const home = ctx.home();
  const view = { limit: undefined, all: false };
  const [{ contentSource }, { contentAnswerKey, findContentAnswer, keepContentAnswer }] = await Promise.all([import('../store/content-cache.js'), import('../store/content-answer.js')]);
  const src = contentSource(home.dir, listings);
  const key = contentAnswerKey(home, agent, holder, listings, src);
  const keeper: Keeper = { src, keep: key ? (e) => keepContentAnswer(home, agent, view, key, listings, e) : null };
  const found = key && findContentAnswer(home, agent, view, key, listings, (h) => stillValid(home, h as FrontierHeader, ctx.nowMs, ctx.cwd));
  if (found) {
    try {
      // (A state a few files from this one: under no file keys, so that it is never reused as it is.)
      if (found.restore(found.moved ? '' : fp, (digest) => graphFingerprint(home, agent, holder, view, digest))) {
        if (found.moved) {
          trace(`frontier: restored from the machine's answers by content, ${found.moved} file${found.moved === 1 ? '' : 's'} changed since`);
          return { again: keeper };
        }
        const c = readCachedFrontier(home, agent, view, head);
        if (c) {
          trace('frontier: restored from the machine\'s answers by content');
          return reusedAnswer(home, agent, view, c, iso(ctx.nowMs));
        }
      }
    } finally {
      found.close();
    }
  }
  return keeper;
}
