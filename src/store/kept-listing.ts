import { readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeCache, RACY_MS } from './cache-file.js';
import { readSnapshot, remarkSnapshot } from './graph-index.js';
import { listAgents, type Home } from './home.js';
import { autoStartKeeper } from './index-auto-start.js';
import { keeperPaths, liveKeeper, type KeeperAnswer, type KeeperQuestion } from './index-keeper-files.js';
import { randomBytes } from './random.js';
import { sleepSync } from './sleep-sync.js';
import { nanFilesOf, type StatIndex } from './stat-index.js';
import { listAgentWork, makeListing, movedRecords, namesOfSnapshot, putStat, sameNames, statEntry, withMoved, type Listing } from './work-listing.js';
import { workDir } from './work-store.js';
import { trace } from './trace.js';
import { codePath } from './code-paths.js';
import { byteOrder } from './byte-order.js';

/**
 * The agents' work listings with the help of a running index keeper (runtime/index-keeper.ts): each
 * agent's files are rebuilt from its graph snapshot (the names and stat numbers of the last listing),
 * and only the names the keeper saw an event for since that snapshot's mark are stat'ed again. The
 * result is the listing a stat of every file would give (same names, same numbers, in readdir's byte
 * order: the evaluation names gates and cycles in listing order), at the cost of a question to the keeper (under a millisecond
 * of cpu) instead of one stat per file.
 *
 * Wherever the keeper cannot vouch (none runs, it does not answer within WAIT_MS, another epoch, a
 * folder it has not watched since the snapshot was made, too many changes), that agent's files are
 * listed in full, as without a keeper. Listings made after the keeper answered carry its mark, so the
 * snapshots written from them can be vouched for next time.
 */


/**
 * How long a command waits for the keeper's answer before it lists its files itself (the answer is the
 * same either way). HOLON_INDEX_WAIT_MS overrides it: tests that check the keeper answered set it long,
 * since a loaded machine can hold the keeper's thread back for more than a second.
 */
const waitMs = () => (Number(process.env.HOLON_INDEX_WAIT_MS) > 0 ? Number(process.env.HOLON_INDEX_WAIT_MS) : 1000);

const splitMark = (mark: string): [string, number] | null => {
  const i = mark.lastIndexOf(':');
  const gen = Number(mark.slice(i + 1));
  return i > 0 && Number.isInteger(gen) ? [mark.slice(0, i), gen] : null;
};

/** Why a keeper did not answer; `absent` when none runs (a command may then start one: index-auto-start.ts). */
interface NoAnswer {
  why: string;
  absent?: boolean;
}

/** The keeper's answer to "what changed in each agent's folder since `since[agent]` of `epoch`", or why there is none. */
export function askKeeper(home: Home, epoch: string, since: Record<string, number>): (KeeperAnswer & { refreshCwd: string | null }) | NoAnswer {
  const no = (why: string): NoAnswer => ({ why });
  if (process.platform !== 'linux') return no('no keeper off Linux');
  if (process.env.HOLON_INDEX === '0') return no('HOLON_INDEX=0');
  const paths = keeperPaths(home.local);
  const keeper = liveKeeper(home.local);
  if (typeof keeper === 'string') return { why: keeper, absent: true };
  const name = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const res = join(paths.res, name);
  // The rename into req/ is the question and the keeper's probe at once (see index-keeper.ts).
  // (Not a look for the file afterwards: the keeper may have taken it already and not yet answered.)
  const q: KeeperQuestion = { epoch, since, ...(process.env.HOLON_INDEX_REFRESHING === '1' ? { refresh: true } : {}) };
  if (!writeCache(join(paths.req, name), JSON.stringify(q), join(home.local, 'tmp'))) return no('cannot write the question to the keeper');
  // A monotonic clock: a wall clock set back meanwhile would stretch the wait.
  const now = () => Number(process.hrtime.bigint()) / 1e6;
  const until = now() + waitMs();
  // The answer comes within a millisecond from a keeper that is not busy: look often at first.
  for (let pause = 0.05; ; pause = Math.min(2, pause * 2)) {
    let text: string | null = null;
    try {
      text = readFileSync(res, 'utf8');
    } catch {
      // Not yet.
    }
    if (text !== null) {
      try {
        unlinkSync(res);
      } catch {
        // Swept already.
      }
      try {
        const a = JSON.parse(text) as KeeperAnswer;
        if (typeof a.epoch === 'string' && Number.isInteger(a.gen) && a.watched && typeof a.watched === 'object') return { ...a, refreshCwd: typeof keeper.refresh_cwd === 'string' ? keeper.refresh_cwd : null };
      } catch {
        // Said below.
      }
      return no('the keeper\'s answer did not parse');
    }
    if (now() >= until) break;
    sleepSync(pause);
  }
  try {
    unlinkSync(join(paths.req, name));
  } catch {
    // Taken by the keeper meanwhile: it sweeps an answer nobody collects.
  }
  return no(`no answer from the keeper within ${waitMs()} ms`);
}

/**
 * What the index keeper told a listing (listKept's `seen`): per agent whose listing it vouched for, the
 * names it reported changed since that agent's snapshot; and where its host computes the answers again
 * after a change (null: it does not). The keeper tells its host of every name it reports, in the same
 * turn as it answers (runtime/index-keeper.ts afterBatch), so a refresh follows each of them.
 */
export interface KeeperSeen {
  refreshCwd: string | null;
  reported: Map<string, Set<string>>;
}

/** Snapshots past this many files make a full listing long work (see listKept's `longWork`). */
const LONG_LISTING = 2000;

/**
 * Every agent's work listing; with a keeper's help where it can vouch, else a stat of every file.
 * `longWork` is called before stat'ing every file of an agent with no snapshot or a big one (once per
 * such agent), with the snapshot's file count (0: none): the caller may then trade V8's optimizer for
 * less cpu (runtime/compile-mode.ts, which acts on the first call).
 */
export function listKept(home: Home, agents = listAgents(home), longWork: (files: number) => void = () => {}, seen?: KeeperSeen): Listing[] {
  const snaps = new Map<string, StatIndex>();
  const cachePath = (a: string) => join(home.local, 'cache', `graph-${a}.json`);
  let epoch = '';
  const since: Record<string, number> = {};
  for (const a of agents) {
    const s = readSnapshot(cachePath(a));
    const m = s && splitMark(s.mark);
    if (s) snaps.set(a, s);
    if (!m) continue;
    // Snapshots of other epochs (an old keeper) are listed in full below.
    if (!epoch) epoch = m[0];
    if (m[0] === epoch) since[a] = m[1];
  }
  const long = (a: string) => {
    const n = snaps.get(a)?.count;
    if (n === undefined || n > LONG_LISTING) longWork(n ?? 0);
  };
  const answer = askKeeper(home, epoch, since);
  if ('why' in answer) {
    trace(`every file stat'ed (${answer.why})`);
    codePath('listed');
    agents.forEach(long);
    const listed = listAllMarked(home, agents, () => '', snaps);
    if (answer.absent) autoStartKeeper(home, listed.reduce((n, l) => n + l.count, 0));
    return listed;
  }
  const mark = `${answer.epoch}:${answer.gen}`;
  if (seen) seen.refreshCwd = answer.refreshCwd;
  const out: Listing[] = [];
  for (const a of agents) {
    // Own properties only: an agent may be called `constructor`.
    const watchedSince = Object.hasOwn(answer.watched, a) && typeof answer.watched[a] === 'number' ? answer.watched[a] : undefined;
    const reported = answer.changed && Object.hasOwn(answer.changed, a) && Array.isArray(answer.changed[a]) ? answer.changed[a] : [];
    // Listed after the answer, under a watch: the numbers listed now carry the mark.
    const markOf = watchedSince === undefined ? '' : mark;
    const s = snaps.get(a);
    const m = s && splitMark(s.mark);
    const vouched = s && m && answer.changed && m[0] === answer.epoch && watchedSince !== undefined && m[1] >= watchedSince;
    if (!vouched) long(a);
    codePath(vouched ? 'kept' : 'listed');
    const l = vouched ? rebuilt(home, a, s, reported, markOf) : listAgentWork(home, a, markOf, s);
    // Names a sweep reported without telling the host: no refresh is known to follow them.
    const untold = answer.untold && Object.hasOwn(answer.untold, a) && Array.isArray(answer.untold[a]) ? answer.untold[a] : [];
    if (vouched && seen) seen.reported.set(a, new Set(untold.length ? reported.filter((n) => !untold.includes(n)) : reported));
    // A snapshot the keeper could not vouch for, found equal to this listing made under its answer, is
    // stored under that answer's mark now: a reused answer writes nothing else, and without this every
    // later call would list in full again.
    if (!vouched && l && s && markOf && sameNumbers(s, l)) remarkSnapshot(home, l.cachePath, s, markOf, l.part);
    if (!vouched) trace(`${a}: every file stat'ed (${!s ? 'no snapshot' : !m ? 'snapshot made without a keeper' : watchedSince === undefined ? 'folder not watched' : !answer.changed ? 'too many changes, or another epoch' : m[0] !== answer.epoch ? 'snapshot of another epoch' : 'snapshot older than the watch'})`);
    if (l) out.push(l);
  }
  return out;
}

/**
 * Same names in the same order and the same numbers, where the snapshot has numbers: a name stored as
 * NaN (racy, hard-linked, irregular, unreadable) is stat'ed on every rebuilt listing anyway.
 */
function sameNumbers(s: StatIndex, l: Listing): boolean {
  if (s.count !== l.count || !sameNames(s, l)) return false;
  const moved = movedRecords(s.stats, l.stats, s.count);
  return moved !== null && moved.every((i) => Number.isNaN(s.stats[4 * i]));
}

function listAllMarked(home: Home, agents: string[], markOf: (a: string) => string, snaps: Map<string, StatIndex>): Listing[] {
  const out: Listing[] = [];
  for (const a of agents) {
    const l = listAgentWork(home, a, markOf(a), snaps.get(a));
    if (l) out.push(l);
  }
  return out;
}

/** Past this many names looked at again, the snapshot is stored under the new mark (shorter answers). */
const REMARK_AT = 64;

/**
 * An agent's listing from its snapshot: the names the keeper reports, and those the snapshot never
 * vouches for (stored as NaN: racy, hard-linked, irregular), are stat'ed; every other name keeps its
 * numbers, which no event has touched since they were taken.
 */
function rebuilt(home: Home, agent: string, snap: StatIndex, reported: string[], mark: string): Listing | null {
  // (No snapshot holds a name with a newline in it, which would shift the names after it: graph-index.ts.)
  const names = namesOfSnapshot(snap);
  const look = new Set<string>();
  for (const n of reported) look.add(n);
  const unsure = nanFilesOf(snap);
  for (const i of unsure) look.add(names.at(i));
  const racy = new Set<string>();
  const irregular = new Set<string>();
  const linked = new Set<string>();
  trace(`${agent}: kept, ${look.size} of ${snap.count} stat'ed${look.size && look.size <= 5 ? ` (${[...look].join(', ')})` : ''}`);
  // Nothing to stat again: the snapshot's own numbers, not a copy (320 KB at 10,000 files, fresh memory
  // whose page faults cost more than the copy), and not even read. Nothing writes them: a listing with
  // no file looked at again patches no number of its snapshot (graph-index.ts quickDigest looks only at `looked`).
  if (!look.size) return makeListing(home, agent, { names, racy, irregular, linked }, { mark, namesOf: snap, snapshot: snap, looked: [] });
  const dir = workDir(home, agent);
  const since = Date.now() - RACY_MS;
  const gone = new Set<number>();
  const added: Array<{ name: string; numbers: Float64Array }> = [];
  const looked: number[] = [];
  // The new numbers of the files stat'ed again (the listing reads the snapshot's for the others).
  const moved = new Map<number, Float64Array>();
  for (const n of look) {
    let st;
    try {
      st = statEntry(join(dir, n));
    } catch {
      // Unreadable now (a permission): listed in full, where a stat of every file reports it the same way.
      trace(`${agent}: every file stat'ed (${n} could not be stat'ed)`);
      return listAgentWork(home, agent, mark);
    }
    const i = names.indexOf(n);
    if (!st) {
      if (i >= 0) gone.add(i);
      continue;
    }
    const numbers = new Float64Array(4);
    putStat(numbers, 0, st.s, n, since, racy, irregular, linked, st.symlink);
    if (i >= 0) {
      moved.set(i, numbers);
      looked.push(i);
    }
    else added.push({ name: n, numbers });
  }
  const remark = look.size > REMARK_AT;
  if (!gone.size && !added.length) {
    const l = makeListing(home, agent, { names, racy, irregular, linked }, { mark, namesOf: snap, snapshot: snap, looked, moved, remark });
    // Names the snapshot could not vouch for that now have plain numbers: reading them once more stores
    // those numbers, so later calls need not stat them (a reused answer would not).
    for (const i of unsure) {
      if (l.healable) break;
      const n = names.at(i);
      if (!racy.has(n) && !linked.has(n) && !irregular.has(n)) l.healable = true;
    }
    return l;
  }
  // Names came or went: a new list (the snapshot, of other names, then only serves as numbers).
  const stats = withMoved(snap.stats, moved);
  const keptNames: string[] = [];
  const all = names.all();
  const kept = new Float64Array((all.length - gone.size + added.length) * 4);
  let j = 0;
  for (let i = 0; i < all.length; i++) {
    if (gone.has(i)) continue;
    keptNames.push(all[i]);
    kept.set(stats.subarray(4 * i, 4 * i + 4), j);
    j += 4;
  }
  // Each added name where readdir (libuv sorts by strcmp) would list it: a full listing, and so a full
  // evaluation, sees the names in that order, and the evaluation names gates and cycles in it.
  added.sort((a, b) => byteOrder(a.name, b.name));
  let at = keptNames.length;
  for (let k = added.length - 1; k >= 0; k--) {
    const a = added[k];
    let lo = 0;
    let hi = at;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (byteOrder(keptNames[mid], a.name) < 0) lo = mid + 1;
      else hi = mid;
    }
    keptNames.splice(lo, 0, a.name);
    kept.copyWithin(4 * lo + 4, 4 * lo, j);
    kept.set(a.numbers, 4 * lo);
    j += 4;
    at = lo;
  }
  return makeListing(home, agent, { names: keptNames, stats: kept, racy, irregular, linked }, { mark, remark: true });
}
