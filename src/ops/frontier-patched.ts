import type { Entry, Listing } from '../store/graph-index.js';
import { refreshFailing } from '../store/index-keeper-files.js';
import { readCut, readDeps, readTitleIndex, storeFrontier, type StoredAs } from '../store/frontier-cache.js';
import type { FrontierView } from '../store/frontier-files.js';
import { openAnswerText, readAnswerText, reuseParts, withNow, type CachedFrontier } from '../store/answer-file.js';
import { partChunks, TextRange, type AnswerText, type Part } from '../store/answer-text.js';
import type { PatchInput, PatchPlan } from '../store/frontier-patch-plan.js';
import type { VerdictPatch } from '../store/frontier-patch.js';
import type { Home } from '../store/home.js';
import type { KeeperSeen } from '../store/kept-listing.js';
import type { Titled } from '../store/stat-index.js';
import { codePath } from '../store/code-paths.js';
import { trace } from '../store/trace.js';
import { beforeLongWork } from '../runtime/compile-mode.js';
import { PER } from '../store/frontier-entry-text.js';
import type { OpsCtx } from './context.js';
import { NOT_RUNNABLE_SHOWN } from '../core/frontier-codes.js';
import type { Answer, Whole } from './frontier.js';

/**
 * A cached answer after a change of a few items: patched (store/frontier-patch.ts) and stored, or, for a
 * pick whose change the index keeper will store, only the top of runnable (store/frontier-patch-head.ts).
 */

export type VerdictArgs = { agent: string; holder: string; view: FrontierView; prev: CachedFrontier; fp: string; gfp: string; listings: Listing[]; snapshots: Record<string, Titled>; changed: Array<Array<[number, Entry]>>; before: Array<[number, number, number]> };

/**
 * The previous answer with the verdicts of the changed items and of the items reading them evaluated
 * again (store/frontier-patch.ts); null when it cannot be patched, and the graph is evaluated. `src`:
 * the answer read where the patch uses it (then `x.prev` may hold its start alone), for one stored now.
 */
export async function withVerdicts(ctx: OpsCtx, x: VerdictArgs, store: boolean, src?: AnswerText): Promise<Answer | null> {
  codePath('verdicts');
  const input = patchInput(ctx, x);
  if (!input) return null;
  // Its loops over every entry shown (the channels' layout) compiled on the spot cost more than they
  // save past some 10,000 entries: a `pick` after a `complete` at 50,000 items (25,000 shown) took 143
  // ms of cpu with the optimizer on, 128 with it off (interleaved; node -e 0: 54); at 10,000 (5,000
  // shown) 96 and 99.
  if (input.index.quads.length > LONG_PATCH * PER) beforeLongWork(0, x.listings.reduce((n, l) => n + l.count, 0));
  const { patchVerdicts } = await import('../store/frontier-patch.js');
  return patched(ctx.home(), patchVerdicts, x, { ...input, text: x.prev.bytes.subarray(x.prev.start), ...(src && store ? { src } : {}) }, store);
}

/** What a verdict patch reads beside the answer's text (its read index, entry index and cut); null when one is missing. */
function patchInput(ctx: OpsCtx, x: VerdictArgs): Omit<PatchInput, 'text'> | null {
  const home = ctx.home();
  const { agent, view, prev } = x;
  const deps = readDeps(home, agent, view, prev.header.lineage);
  const index = deps && readTitleIndex(home, agent, view, prev);
  if (!deps || !index) return null;
  const cut = index.channels[index.channels.length - 1][1] ? readCut(home, agent, view, prev.header.lineage) : null;
  // Its titles and priorities as the index was made, too (the graph digest leaves them out).
  const asFound = x.before.every(([, titles, prios], k) => index.listings[k]?.titles === titles && index.listings[k].prios === prios);
  return {
    agent, holder: x.holder, nowMs: ctx.nowMs, cwd: ctx.cwd, header: prev.header,
    index, cut, deps, listings: x.listings, snapshots: x.snapshots, changed: x.changed, asFound, cap: NOT_RUNNABLE_SHOWN,
  };
}

/** Past this many entries shown, a verdict patch is long work (runtime/compile-mode.ts). */
const LONG_PATCH = 10_000;

type Patcher = (home: Home, x: PatchInput, plan?: PatchPlan) => VerdictPatch | null;

/**
 * The patched answer, stored unless `store` is false (left to the keeper: leftToKeeper; `keep` then
 * stores it after all); null when it cannot be patched.
 */
function patched(home: Home, patchVerdicts: Patcher, x: VerdictArgs, input: PatchInput, store: boolean, plan?: PatchPlan): Answer | null {
  const done = patchVerdicts(home, input, plan);
  if (!done) return null;
  trace(`frontier: patched (${done.evaluated} item${done.evaluated === 1 ? '' : 's'} evaluated again)${store ? '' : '; the index keeper stores the answer'}`);
  const header = { ...done.header, fp: x.fp, gfp: x.gfp };
  const src = input.src;
  const keep = () => storeFrontier(home, x.agent, x.view, header, src ? { parts: done.parts, src } : (done.parts as Buffer[]), done.index, done.deps);
  // (Not stored now: read whole, no ranges in it; withVerdicts gives no `src` then.)
  if (!store) return { parts: done.parts as Buffer[], header: { ...header, token: '' }, keep: () => void keep() };
  const stored = keep();
  return { ...storedAnswer(home, x.agent, x.view, done.parts, src, stored), header: { ...header, token: stored.token } };
}

/**
 * An answer just stored as `parts` (ranges of the old answer's file among them where it was read
 * through `text`: store/answer-text.ts): the parts themselves where they are all in memory; else their
 * start, up to the first range, and the rest read or copied from the file just stored (`rest`, `tail`:
 * null once another answer is stored), so that nothing holds the whole text. Where the text could not
 * be written (a read-only home, a full disk), the ranges are read now, from the old file still open.
 * `now`: the `now` the stored text has and this call's, for the start as printed.
 */
export function storedAnswer(home: Home, agent: string, view: FrontierView, parts: Part[], text: AnswerText | undefined, stored: StoredAs, now?: [string, string]): Pick<Answer, 'parts' | 'rest' | 'tail'> {
  const lead = parts.findIndex((p) => p instanceof TextRange);
  const inMemory = lead < 0 ? (parts as Buffer[]) : !stored.written ? [Buffer.concat(Array.from(partChunks(parts, text!), (b) => Buffer.from(b)))] : null;
  // (Never a range first: the start of the text was read.)
  const start = inMemory ?? (parts.slice(0, lead) as Buffer[]);
  const printed = now ? withNow(start, now[0], now[1]) : start;
  if (inMemory) return { parts: printed };
  const at = Buffer.byteLength(stored.token) + 1 + start.reduce((n, p) => n + p.length, 0);
  return { parts: printed, ...restAt(home, agent, view, stored.token, at) };
}

/** A stored answer reused as it is: its parts with this call's `now`, under `header`; `rest` and `tail` where only its start was read. */
export function reusedAnswer(home: Home, agent: string, view: FrontierView, c: CachedFrontier, nowIso: string, header = c.header): Answer {
  return { parts: reuseParts(c, nowIso), header, ...(c.partial ? restAt(home, agent, view, c.header.token, c.bytes.length) : {}) };
}

/** `rest` and `tail` of the stored answer under `token` whose file's first `at` bytes a call has (see Answer). */
export function restAt(home: Home, agent: string, view: FrontierView, token: string, at: number): Pick<Answer, 'rest' | 'tail'> {
  return { rest: () => readAnswerText(home, agent, view, token), tail: () => openAnswerText(home, agent, view, token, at) };
}

/**
 * Whether a pick, or a look (a view of up to 50 a channel, cut from the default answer), can leave a
 * patched answer to the index keeper: its host computes each agent's default answer and the view a
 * person sees again after a change (runtime/frontier-refresh.ts), with the agent's own holder and in its
 * own folder, and every file this call found changed is one the keeper reported, which it has told
 * that refresh of (store/kept-listing.ts KeeperSeen). The call then stores nothing, neither the answer
 * (megabytes at 50,000 items) nor the snapshot, nor a view cut from it: the refresh, in the keeper's
 * process, stores them once, where the command and then the refresh each did. A pick reads only the top
 * of runnable as the patch would leave it (topAfterChange). A change the keeper did not report (a file
 * it cannot vouch for) or reported without telling its host (a sweep's find after an event: `untold`),
 * another holder or folder, no refresh (HOLON_INDEX_REFRESH=0), a refresh that failed last time
 * (local/index/refresh-failed), or the refresh itself (HOLON_INDEX_REFRESHING), and the call stores as
 * before. A look is any view of up to 50 a channel (`holon frontier`, or `--limit N`).
 */
export function leftToKeeper(ctx: OpsCtx, seen: KeeperSeen, agent: string, holder: string, listings: Listing[], changed: Array<Array<[number, Entry]>>): boolean {
  if (ctx.env.HOLON_INDEX_REFRESHING === '1' || seen.refreshCwd === null || seen.refreshCwd !== ctx.cwd || holder !== `agent:${agent}`) return false;
  if (!listings.every((l, k) => changed[k].every(([i]) => seen.reported.get(l.agent)?.has(l.nameAt(i)) === true))) return false;
  // Looked at only now, when a patch would be left to it (runtime/frontier-refresh.ts marks a failed refresh).
  return !refreshFailing(ctx.home().local);
}

/**
 * A pick's answer after a change the keeper will store (leftToKeeper): the top of runnable, patched
 * from the answer's start alone (store/frontier-patch-head.ts); `rest`, the whole answer patched (not
 * stored either) only if the pick needs more of it. Null when it cannot be patched so.
 */
export async function topAfterChange(ctx: OpsCtx, x: VerdictArgs, whole: Whole): Promise<Answer | null> {
  const input = patchInput(ctx, x);
  if (!input) return null;
  const home = ctx.home();
  const [{ patchedHead }, { patchVerdicts }] = await Promise.all([import('../store/frontier-patch-head.js'), import('../store/frontier-patch.js')]);
  const top = patchedHead(home, { ...input, text: x.prev.bytes.subarray(x.prev.start) });
  if (!top) return null;
  codePath('head');
  trace(`frontier: top of runnable patched (${top.evaluated} item${top.evaluated === 1 ? '' : 's'} evaluated again); the index keeper stores the answer`);
  const rest = () => {
    const full = whole.get();
    // The same plan as the top's: the same verdicts, whatever changed on disk since.
    const done = full && patched(home, patchVerdicts, { ...x, prev: full }, { ...input, text: full.bytes.subarray(full.start) }, false, top.plan);
    return done ? Buffer.concat(done.parts as Buffer[]) : null;
  };
  return { parts: top.parts, rest };
}

