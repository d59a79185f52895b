import type { Frontier } from '../core/frontier.js';
import type { RecordProblem } from '../core/record-codec.js';
import { jsonParts } from '../core/json-parts.js';
import { iso } from '../core/time.js';
import { NOT_RUNNABLE_SHOWN } from '../core/frontier-codes.js';
import { frontierFingerprint, graphFingerprint, headerFor, readCut, readTitleIndex, restampFrontier, stillValid, storeCut, storeFrontier, storeTitleIndex } from '../store/frontier-cache.js';
import type { FrontierHeader, FrontierView } from '../store/frontier-files.js';
import { readCachedFrontier, reuseParts, storedText, withNow, type CachedFrontier, type TextCopy } from '../store/answer-file.js';
import { currentTitles, titleIndexOf, type Since, type TitlePatch } from '../store/frontier-titles.js';
import type { AnswerText } from '../store/answer-text.js';
import type { StoredText } from '../store/answer-delta.js';
import type { Titled } from '../store/stat-index.js';
import { quickDigest, type Entry, type Listing } from '../store/graph-index.js';
import type { Home } from '../store/home.js';
import { listKept, type KeeperSeen } from '../store/kept-listing.js';
import { beforeLongWork } from '../runtime/compile-mode.js';
import { codePath } from '../store/code-paths.js';
import { leftToKeeper, reusedAnswer, storedAnswer, topAfterChange, withVerdicts } from './frontier-patched.js';
import { keptByContent, type Keeper } from './frontier-kept.js';
import { trace } from '../store/trace.js';
import type { OpsCtx } from './context.js';
import { holderOf } from './holder.js';

export type FrontierResult = Frontier & { problems: RecordProblem[] };

export interface FrontierOpts {
  limit?: number;
  /** Every not_runnable entry, not only the first NOT_RUNNABLE_SHOWN. */
  all?: boolean;
}

function capNotRunnable(f: Frontier): void {
  const extra = f.not_runnable.length - NOT_RUNNABLE_SHOWN;
  if (extra <= 0) return;
  f.not_runnable = f.not_runnable.slice(0, NOT_RUNNABLE_SHOWN);
  f.truncated = { ...f.truncated, not_runnable: (f.truncated.not_runnable ?? 0) + extra };
}

/** The frontier as JSON text. */
export async function frontierText(ctx: OpsCtx, opts: FrontierOpts): Promise<string> {
  return partsText(await frontierParts(ctx, opts));
}

/** Parts of text (strings, or UTF-8 bytes) as one string. */
export const partsText = (parts: Array<string | Uint8Array>) => parts.map((p) => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('');

/** Parts of text as one buffer (what store/frontier-entry-text.ts reads entries from). */
export const partsBytes = (parts: Array<string | Uint8Array>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));

/**
 * The frontier of the acting agent as JSON text in parts, reused from the cache under local/ when
 * nothing it reads has changed (so `holon frontier --json` prints the cached bytes without parsing or
 * decoding them). Reads only.
 */
export async function frontierParts(ctx: OpsCtx, opts: FrontierOpts): Promise<Array<string | Uint8Array>> {
  return (await answerParts(ctx, opts)).parts;
}

/** What a reused answer to be printed reads before the rest is copied: its `now` is in the first lines. */
const PRINT_HEAD = 16 * 1024;

/**
 * The frontier to print (`holon frontier --json`): parts, and where the stored answer is reused as it
 * is, `tail`, the rest of its bytes, copied from the file in chunks. At 10,000 items the answer is
 * 1.5 MB (7.5 MB at 50,000), and reading it whole into fresh memory cost a reused answer several
 * times what copying it through one small buffer does.
 */
export async function frontierOut(ctx: OpsCtx, opts: FrontierOpts): Promise<{ parts: Array<string | Uint8Array>; tail: TextCopy | null }> {
  const a = await answerParts(ctx, opts, PRINT_HEAD);
  const tail = a.tail ? a.tail() : null;
  if (tail) trace(`frontier: the answer's first ${PRINT_HEAD} bytes read, the rest copied from its file`);
  if (!a.tail || tail) return { parts: a.parts, tail };
  // Another call stored a new answer since this one's start was read: the answer again, whole.
  return { parts: (await answerParts(ctx, opts)).parts, tail: null };
}

/**
 * The frontier's default answer for a reader of its top alone (`holon pick`): where the cached answer
 * is reused as it is, only its first `head` bytes are read (at 50,000 items the answer is 7.5 MB,
 * reading it some 10 ms), and `rest` reads the whole of it; otherwise the whole answer, as
 * frontierParts gives it.
 */
export async function frontierHead(ctx: OpsCtx, head: number): Promise<Answer> {
  const a = await answerParts(ctx, {}, head, true);
  if (a.rest) trace(`frontier: the answer's first ${head} bytes read`);
  return a;
}

/**
 * An answer in parts; `rest` and `tail`, when only the start of the stored answer was read: its whole
 * text as stored (its `now` the header's, the time of the call that made it, where `parts` has this
 * call's), and the bytes after that start to copy (`parts` then ends where the start does), each null
 * once another answer is stored; `header`, what it is stored under (a view cut from it inherits it).
 */
export interface Answer {
  parts: Array<string | Uint8Array>;
  /**
   * Set on a patched answer left to the index keeper to store (frontier-patched.ts leftToKeeper), of
   * which no view cut is stored either: stores it (and its snapshots) after all, when no view can be cut.
   */
  keep?: () => void;
  rest?: () => Buffer | null;
  tail?: () => TextCopy | null;
  header?: StoredHeader;
}
type StoredHeader = Omit<FrontierHeader, 'v'>;

/**
 * `pick`: for `holon pick`, which reads the top of runnable alone. A pick, and a view a person sees,
 * leave a patched answer to the index keeper where it will store it (frontier-patched.ts leftToKeeper).
 */
async function answerParts(ctx: OpsCtx, opts: FrontierOpts, head?: number, pick = false): Promise<Answer> {
  const view = { limit: opts.limit, all: Boolean(opts.all) };
  const home = ctx.home();
  const agent = ctx.agent();
  const holder = holderOf(ctx, agent);
  const limited = !view.all && view.limit !== undefined && view.limit <= NOT_RUNNABLE_SHOWN;
  // Only a pick or a look may leave its answer to the keeper: only they hear what it said.
  const seen: KeeperSeen | undefined = pick || limited ? { refreshCwd: null, reported: new Map() } : undefined;
  const listings = listKept(home, undefined, (files) => beforeLongWork(0, files), seen);
  const at: At = { agent, holder, listings, seen, pick };
  if (limited) {
    const cut = await limitedFromDefault(ctx, view, at);
    if (cut) return cut;
  }
  return answerFor(ctx, view, at, head);
}

/**
 * A view of at most NOT_RUNNABLE_SHOWN entries a channel (what a person sees), cut from the default
 * answer (store/frontier-limit.ts) when its own stored answer is not current; null where it cannot be
 * cut, and it is evaluated.
 */
async function limitedFromDefault(ctx: OpsCtx, view: FrontierView, at: At): Promise<Answer | null> {
  const home = ctx.home();
  const { agent, holder, listings } = at;
  const fp = frontierFingerprint(home, agent, holder, view, listings);
  const keptFp = listings.some((l) => l.racy.size > 0) ? '' : fp;
  const nowIso = iso(ctx.nowMs);
  const cached = readCachedFrontier(home, agent, view);
  if (cached && keptFp && cached.header.fp === fp && !listings.some((l) => l.healable) && stillValid(home, cached.header, ctx.nowMs, ctx.cwd)) {
    trace('frontier: reused (no file changed)');
    return { parts: reuseParts(cached, nowIso) };
  }
  // The default answer, its start alone where it is reused as it is stored (the same token): then the
  // cut made from it is too, with this call's file keys and time (every call within 2 s of a change,
  // whose file keys vouch for nothing, comes here).
  const base = await answerFor(ctx, { limit: undefined, all: false }, at, BASE_HEAD);
  const token = base.header?.token;
  if (cached && token && cached.header.base === token && stillValid(home, cached.header, ctx.nowMs, ctx.cwd)) {
    trace('frontier: reused (cut from the same default answer)');
    restampFrontier(home, agent, view, { ...cached.header, fp: keptFp });
    return { parts: reuseParts(cached, nowIso) };
  }
  const { limitedAnswer } = await import('../store/frontier-limit.js');
  // (A patched or evaluated answer in its parts, not joined: megabytes of fresh memory at 50,000 items.)
  const text = base.keep ? base.parts : !token ? null : base.rest ? base.rest() : base.parts;
  const cut = text && limitedAnswer(text, view.limit!, NOT_RUNNABLE_SHOWN);
  if (!cut) {
    trace('frontier: not cut from the default answer');
    // Stored as it would have been: the evaluation of this view next reads the snapshot the patch moved.
    base.keep?.();
    return null;
  }
  trace(`frontier: cut to ${view.limit} a channel from the default answer`);
  // Made from what the default answer was made from: its header, under this view's file keys, with no
  // graph digest (a limited answer is reused by its file keys, or while the default answer is the same).
  const { token: _, ...header } = base.header!;
  // (Not when the default answer was patched for the keeper to store: its refresh stores this view too.)
  if (!base.keep) storeFrontier(home, agent, view, { ...header, fp: keptFp, gfp: '', lineage: undefined, now: cut.now, base: token }, cut.parts, null);
  // Stored with the `now` of the text it was cut from (a default answer reused as stored, read from its
  // file, has the time it was made), printed with this call's.
  return { parts: withNow(cut.parts, cut.now, nowIso) };
}

/** What a view cut from the default answer reads of it where that is reused as stored: its token line and head. */
const BASE_HEAD = 4096;

/** The acting agent and holder, the listings; for a pick or a person's view, what the index keeper said of them (`seen`). */
interface At {
  agent: string;
  holder: string;
  listings: Listing[];
  seen?: KeeperSeen;
  pick?: boolean;
  /** local/ was restored from a kept state a few files from this one: what keeps an evaluation's answer (ops/frontier-kept.ts). */
  restored?: Keeper;
}

async function answerFor(ctx: OpsCtx, view: FrontierView, at: At, head?: number): Promise<Answer> {
  const { limit } = view;
  const home = ctx.home();
  const { agent, holder, listings } = at;
  const fp = frontierFingerprint(home, agent, holder, view, listings);
  // An answer built on a file changed a moment ago is never reused by file keys (see RACY_MS).
  const keptFp = listings.some((l) => l.racy.size > 0) ? '' : fp;
  const nowIso = iso(ctx.nowMs);
  const cached = readCachedFrontier(home, agent, view, head);
  // The previous answer, when the inputs outside the work files (clock window, checkout, events) hold.
  const prev = cached && stillValid(home, cached.header, ctx.nowMs, ctx.cwd) ? cached : null;
  if (prev && prev.header.fp === fp && !listings.some((l) => l.healable)) {
    trace('frontier: reused (no file changed)');
    return reusedAnswer(home, agent, view, prev, nowIso);
  }
  // Patched from: the whole text, of the same answer (else, another call's just stored, it is evaluated),
  // read only where it is needed: a pick whose answer has the same digest and titles needs its start alone.
  const whole = prev && wholeOf(home, agent, view, prev);
  if (prev) {
    // A few files changed (a progress note): their new content hashes give the digest without the
    // graph cache; the same digest means the same answer, once its titles are current.
    const digest: Record<string, number> = {};
    const snapshots: Record<string, Titled> = {};
    const changed: Array<Array<[number, Entry]>> = [];
    const before: Array<[number, number, number]> = [];
    const stores: Array<() => void> = [];
    let known = true;
    for (const l of listings) {
      const d = quickDigest(home, l);
      if (d === null) {
        known = false;
        break;
      }
      digest[l.agent] = d.digest;
      snapshots[l.agent] = d.snapshot;
      changed.push(d.changed);
      before.push(d.before);
      stores.push(d.store);
    }
    const storeSnapshots = () => stores.splice(0).forEach((store) => store());
    const gfp = known ? graphFingerprint(home, agent, holder, view, digest) : '';
    const patchable = known && prev.header.gfp !== gfp && defaultView(view);
    // A pick or a look after a change that the index keeper reported and will compute this answer again
    // for: patched and not stored, and for a pick, its top alone (see leftToKeeper).
    const toKeeper = patchable && at.seen !== undefined && leftToKeeper(ctx, at.seen, agent, holder, listings, changed);
    if (!toKeeper) storeSnapshots();
    if (known && prev.header.gfp === gfp) {
      const reused = withTitles(home, agent, holder, view, whole!, keptFp, listings, snapshots, nowIso, { before, files: changed });
      if (reused) return reused;
    }
    // A few items changed what the frontier reads (a complete, a claim): those and their readers.
    // Only from the snapshot the answer was made on: one another call stored since (another view's, which
    // read a file edited by hand) would hide that file's change from the changed ones.
    if (patchable) {
      const found = Object.fromEntries(listings.map((l, k) => [l.agent, before[k][0]]));
      const args = { agent, holder, view, prev, fp: keptFp, gfp, listings, snapshots, changed, before };
      const same = graphFingerprint(home, agent, holder, view, found) === prev.header.gfp;
      if (!same) trace('frontier: not patched (the snapshot is not the one the answer was made on)');
      const top = same && toKeeper && at.pick ? await topAfterChange(ctx, args, whole!) : null;
      if (top) return top;
      // Stored now: the answer read where the patch uses it, the rest copied from its file
      // (store/answer-text.ts). Left to the keeper: read whole (what is printed or cut holds it all).
      const src = same && !toKeeper ? storedText(home, agent, view, whole!.read() ?? prev) : null;
      try {
        const full = same && (src ? prev : whole!.get());
        const patched = full && (src || !full.partial) && (await withVerdicts(ctx, { ...args, prev: full }, !toKeeper, src ?? undefined));
        if (patched && patched.keep) {
          const keep = patched.keep;
          patched.keep = () => (storeSnapshots(), keep());
        }
        if (patched) return patched;
      } finally {
        src?.close();
      }
      storeSnapshots();
    }
  }
  // No answer of this view in local/ (a fresh clone or worktree): the machine may keep one by content.
  const found = at.restored ?? (!cached && defaultView(view) ? await keptByContent(ctx, agent, holder, listings, keptFp, head) : null);
  // (Once: restored, local/ has an answer, and where it does not take, the call evaluates.)
  if (found && 'again' in found) return answerFor(ctx, view, { ...at, restored: found.again }, head);
  if (found && 'parts' in found) return found;
  const kept = found;
  // Loaded only now: a reused answer needs neither the graph nor the evaluator.
  beforeLongWork(listings.reduce((n, l) => n + l.count, 0));
  const [{ computeFrontier }, { buildFrontierInput }, { loadListings }, { ReadLog }, { depIndexOf }] = await Promise.all([
    import('../core/frontier.js'), import('../store/frontier-input.js'), import('../store/graph-index.js'), import('../core/frontier-reads.js'), import('../store/frontier-deps.js'),
  ]);
  const loaded = loadListings(home, listings, kept?.src);
  // (git's index, some 6 MB at 50,000 files, is not held through the evaluation.)
  if (kept) kept.src = undefined;
  const gfp = graphFingerprint(home, agent, holder, view, loaded.digest);
  const snapshots = loaded.snapshots;
  if (prev && prev.header.gfp === gfp) {
    // Files changed but not what the frontier reads (a progress note): same answer, new file keys.
    const reused = withTitles(home, agent, holder, view, whole!, keptFp, listings, snapshots, nowIso);
    if (reused) return reused;
  }
  const { input, problems, used } = buildFrontierInput(home, agent, { holder, nowMs: ctx.nowMs, cwd: ctx.cwd }, loaded);
  const bounds = { from: -Infinity, until: Infinity };
  // The default view keeps what each verdict read, so that the next change can be patched in.
  const record = defaultView(view) ? { log: new ReadLog(), out: { reads: new Map(), unique: 0, cycles: 0 } } : undefined;
  const f = computeFrontier(input, { limit, bounds, record });
  // What the default view's cap leaves out, kept so that a new priority there is not an evaluation
  // (store/frontier-cut.ts); with a --limit the channels were cut before this, and nothing is kept.
  const tail = !view.all && limit === undefined ? f.not_runnable.slice(NOT_RUNNABLE_SHOWN) : [];
  if (!view.all) capNotRunnable(f);
  trace('frontier: evaluated');
  // Before the text: what it builds is garbage by the time the text is (the command's peak).
  const titles = titleIndexOf(listings, snapshots, f, tail, holder);
  // Encoded once, for the cache and for stdout alike (at 50,000 items some 7 MB, which each would
  // copy), in parts: the whole text and its bytes are never held at once.
  const bytes = Array.from(jsonParts({ ...f, problems }), (part) => Buffer.from(part));
  const deps = record && titles?.where ? depIndexOf(input.items, agent, folderOf(loaded.folders), record.out, problems.length, tail, titles.where) : null;
  const header = headerFor(keptFp, gfp, bounds, used, f.now);
  const stored = storeFrontier(home, agent, view, header, bytes, titles, deps);
  // Kept by content where every entry is its blob's parse and nothing in it is this checkout's own
  // (content-answer.ts): no record problem (it names a path), the checkout and its objects not read.
  if (kept?.keep && stored.written && loaded.byBlob && !problems.length && !used.workspace && !used.ancestry) {
    const { fp: _f, gfp: _g, ...made } = header;
    kept.keep({ header: made, token: stored.token, lineage: stored.lineage, text: bytes, snapshots });
  }
  return { parts: bytes, header: { ...header, token: stored.token } };
}

const defaultView = (view: FrontierView) => !view.all && view.limit === undefined;

/** The folder (agent) of the loaded item at position n, from where each listing's items end. */
function folderOf(folders: Array<[string, number]>): (n: number) => string {
  let k = 0;
  // Asked in order, n = 0, 1, 2...: one step through the listings at a time.
  return (n) => {
    while (k < folders.length - 1 && n >= folders[k][1]) k++;
    return folders[k][0];
  };
}

/** A stored answer, and its whole text read on first need (`get`: null when another answer was stored meanwhile). */
export interface Whole {
  prev: CachedFrontier;
  get: () => CachedFrontier | null;
  /** What `get` gave, if it was called. */
  read: () => CachedFrontier | null | undefined;
}

function wholeOf(home: Home, agent: string, view: FrontierView, prev: CachedFrontier): Whole {
  let full: CachedFrontier | null | undefined = prev.partial ? undefined : prev;
  const get = () => {
    if (full === undefined) {
      const again = readCachedFrontier(home, agent, view);
      full = again && again.header.token === prev.header.token ? again : null;
    }
    return full;
  };
  return { prev, get, read: () => full };
}

/**
 * The previous answer (same digest) with the titles and priorities its entries show now
 * (frontier-titles.ts), stored under the new file keys; null when its index cannot tell, and the
 * answer is evaluated again.
 */
function withTitles(home: Home, agent: string, holder: string, view: FrontierView, whole: Whole, fp: string, listings: Listing[], snapshots: Record<string, Titled>, nowIso: string, since?: Since): Answer | null {
  const { prev } = whole;
  const index = readTitleIndex(home, agent, view, prev);
  if (!index) return null;
  // What was read of the answer (all of it, or its start: then its file, read where it is used).
  let text: StoredText | null = null;
  const answer = () => {
    const w = whole.read();
    return w === null ? null : (text = storedText(home, agent, view, w ?? prev));
  };
  try {
    let current: TitlePatch | null;
    try {
      current = currentTitles(home, answer, index, listings, snapshots, holder, {
        longWork: () => beforeLongWork(0, listings.reduce((n, l) => n + l.count, 0)),
        cut: () => readCut(home, agent, view, prev.header.lineage),
        since,
      });
    } catch (err) {
      // The stored answer read where it is used failed (cut short in place, an I/O error): evaluated.
      trace(`frontier: not reused (error: ${(err as Error).message})`);
      return null;
    }
    if (!current) return null;
    if (current.cut) codePath('cut');
    if (current.cut && prev.header.lineage) storeCut(home, agent, view, prev.header.lineage, current.cut);
    if (!current.patched) {
      trace(`frontier: reused (same digest, ${current.cut ? 'a priority changed where it is not shown' : 'same titles'})`);
      if (current.reindexed) storeTitleIndex(home, agent, view, prev.header.token, current.index);
      const header = { ...prev.header, fp };
      restampFrontier(home, agent, view, header);
      // Its start alone, where only that was read (a pick): the rest on demand, as a reused answer's.
      const read = whole.read() ?? prev;
      return reusedAnswer(home, agent, view, read, nowIso, header);
    }
    codePath('titles');
    trace(`frontier: reused with ${current.patched} entr${current.patched === 1 ? 'y' : 'ies'} patched`);
    // Stored as it was made (its `now` the header's), printed with this call's.
    const { token: _, ...header } = { ...prev.header, fp };
    const stored = storeFrontier(home, agent, view, header, { parts: current.parts, src: text! }, current.index);
    return { ...storedAnswer(home, agent, view, current.parts, text!, stored, [prev.header.now, nowIso]), header: { ...header, token: stored.token } };
  } finally {
    (text as AnswerText | null)?.close();
  }
}

/** The frontier as data: channels, counts computed before any cap, and records that could not be read. */
export async function frontier(ctx: OpsCtx, opts: FrontierOpts): Promise<FrontierResult> {
  return JSON.parse(await frontierText(ctx, opts)) as FrontierResult;
}
