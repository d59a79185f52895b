import { existsSync, mkdirSync, readdirSync, readFileSync, statfsSync, statSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { folderKey, keeperPaths, type KeeperAnswer, type KeeperQuestion } from '../store/index-keeper-files.js';
import { writeCache } from '../store/cache-file.js';
import { processStart } from '../store/pid.js';
import { randomBytes } from '../store/random.js';
import { keyOf, LOCAL_FS, mdNames, numbers, overflowLimit } from './index-keeper-fs.js';
import { KeeperChanges } from './keeper-changes.js';

/**
 * The index keeper: a worker thread of `holon watch` (or of `holon index`) that watches every agent's
 * work folder and answers one question: which `.md` names had a file event since generation G. A
 * `holon frontier` that asks it stats only those files instead of every file in the home (the stat of
 * every file is what the frontier's cost grew with; store/kept-listing.ts).
 *
 * Why the answer can be trusted (docs/frontier.md, "The index keeper"):
 * - Every change to a file in a watched folder (a write in place, a truncate, touch or chmod, a create,
 *   unlink or rename) queues an inotify event before the system call returns. The keeper's watches all
 *   share its thread's one inotify queue, which is read in order.
 * - A question is a file renamed into req/, which is watched too: when its event arrives, every event
 *   queued before the question was asked has been read. Answers go out after the whole batch of events
 *   read with it (setImmediate), so nothing read in the same batch is missed.
 * - The queue holds max_queued_events entries; past that the kernel drops events and queues one
 *   IN_Q_OVERFLOW, which libuv does not pass on. So the keeper counts what it reads: an overflow means
 *   the queue was full once, and a full queue is read in one batch (libuv reads until the queue is
 *   empty before it returns to the loop). A batch of half the limit or more starts a new epoch: every
 *   mark of the old one is void, and askers list their files in full once.
 * - A folder's watch that breaks (the folder removed, renamed or replaced by a checkout, an error)
 *   is dropped and set again later; `watched` then says from which generation on it covers the folder,
 *   and a snapshot marked before that is not vouched for.
 * - It runs in a worker: the watcher's own work (git, runners) never stalls the reading of the queue.
 * Not covered, so the keeper does not serve there: file systems whose changes can come from elsewhere
 * without an event (NFS, SMB, FUSE...; only local ones listed below are served), and platforms other
 * than Linux. Writes through a hard link in another folder give no event here: such files are always
 * stat'ed (work-listing.ts `linked`).
 */

interface Data {
  local: string;
  agentsDir: string;
  /** How often every file is stat'ed to catch changes no event reported (default 30 s). */
  sweepMs?: number;
  /** Stop after this long without a question (`holon index --idle-exit`); null: never. */
  idleExitMs: number | null;
  /** Where the host computes the answers again after a change (KeeperInfo.refresh_cwd); null: it does not. */
  refreshCwd: string | null;
}

const { local, agentsDir, sweepMs, idleExitMs, refreshCwd } = workerData as Data;
const paths = keeperPaths(local);

/** Past this many changed names in one answer, the asker lists its files instead. */
const MAX_NAMES = 20_000;
/** An answer nobody collected (its asker gave up) is removed after this long. */
const STALE_ANSWER_MS = 60_000;

const post = (m: { type: 'ready' | 'declined' | 'epoch' | 'unseen' | 'error' | 'changed' | 'idle'; text: string }) => parentPort?.postMessage(m);

/** The names changed, and what the host was told of them (`changed`: it refreshes the frontier answers, runtime/frontier-refresh.ts). */
const changes = new KeeperChanges();
/** Tells the host when a change is news to it. */
const tellNews = () => {
  if (changes.takeNews()) post({ type: 'changed', text: '' });
};

/** Files stat'ed per turn of the loop in a sweep, so a question never waits for a whole sweep. */
const SWEEP_SLICE = 1000;

const newEpoch = () => randomBytes(8).toString('hex');

let epoch = newEpoch();
let gen = 0;
interface Watched {
  w: FSWatcher;
  /** The folder's identity (folderKey) when the watch was set: another folder at the path (a swap) ends the watch. */
  id: string;
  /** Cleared when the watch is dropped: its events are then only counted. */
  live: { on: boolean };
  /** The generation from which on the watch covers the folder. */
  since: number;
  /** Every `.md` file's numbers at the last sweep (see sweep()). */
  seen: Map<string, string>;
  /** The generation when the last sweep started. */
  sweptAt: number;
}
const watches = new Map<string, Watched>();
/**
 * Dropped watches, kept open so that their events are still counted: libuv skips the events of a
 * closed watch without a callback, and a batch of them would hide an overflow from the count.
 */
const retired: FSWatcher[] = [];
/** Past this many, the retired watches are closed and a new epoch starts (their uncounted events then void nothing). */
const MAX_RETIRED = 64;
let renewNext = false;
/** Events read since the last check (one batch of the loop). */
let batch = 0;
let checking = false;
const asked: string[] = [];
let limit = Infinity;

/** After each batch of events: an overflow check, then the questions of the batch are answered. */
function counted(): void {
  batch++;
  if (checking) return;
  checking = true;
  setImmediate(afterBatch);
}

/** Nothing of the epoch so far is vouched for any more: every asker lists its files in full once. */
function renew(why: string): void {
  epoch = newEpoch();
  changes.renew();
  for (const v of watches.values()) v.since = gen;
  post({ type: 'epoch', text: `${why}: a new epoch, ${epoch}` });
}

function afterBatch(): void {
  checking = false;
  // The queue may have overflowed: what was dropped is unknown.
  if (batch >= limit) renew(`${batch} file events in one batch (the inotify queue may have overflowed)`);
  else if (renewNext) renew('retired watches closed');
  renewNext = false;
  batch = 0;
  if (asked.length) answerAll(asked.splice(0));
  tellNews();
}

function drop(agent: string): void {
  const v = watches.get(agent);
  if (!v) return;
  watches.delete(agent);
  changes.forget(agent);
  v.live.on = false;
  retired.push(v.w);
  if (retired.length > MAX_RETIRED) {
    for (const w of retired.splice(0)) {
      try {
        w.close();
      } catch {
        // Already closed.
      }
    }
    // Events still queued for them go uncounted: this epoch, and the batch that reads them, are void.
    renew('retired watches closed');
    renewNext = true;
  }
}



/** Watches every agent's work folder not watched yet; `since` is the generation after the watch is set. */
function refresh(): void {
  let agents: string[];
  try {
    agents = readdirSync(agentsDir);
  } catch {
    agents = [];
  }
  for (const a of [...watches.keys()]) {
    // Gone, or another folder at the path now: a rename of the agent's folder or of anything above it
    // (a restore from a copy, a swap, a mount, a re-pointed symlink) gives the old watch no event.
    const v = watches.get(a)!;
    const id = agents.includes(a) ? folderKey(join(agentsDir, a, 'work')) : null;
    if (id !== v.id) drop(a);
  }
  for (const agent of agents) {
    if (watches.has(agent)) continue;
    const dir = join(agentsDir, agent, 'work');
    let w: FSWatcher;
    const live = { on: true };
    const before = folderKey(dir);
    try {
      if (!before || !LOCAL_FS.has(statfsSync(dir).type)) continue;
      w = watch(dir, { persistent: true }, (_type, name) => {
        counted();
        if (!live.on) return;
        gen++;
        const n = name == null ? null : String(name);
        // The folder itself (removed, renamed, its attributes) is reported under its own name.
        if (n === null || n === 'work') return drop(agent);
        if (n.endsWith('.md')) changes.note(agent, n, ++gen);
      });
    } catch {
      continue;
    }
    w.on('error', () => drop(agent));
    const after = folderKey(dir);
    if (!after || after !== before) {
      // Swapped while the watch was set: which folder it watches is not known. Tried again next time.
      live.on = false;
      retired.push(w);
      continue;
    }
    // The numbers the first sweep compares with, taken once the watch is set and before anything is
    // vouched for: a change that no event reports is then always a difference at some later sweep.
    const seen = numbers(dir);
    watches.set(agent, { w, id: after, live, since: ++gen, seen: seen ?? new Map(), sweptAt: gen });
  }
}

/**
 * The safety net: every sweepMs, every work file is stat'ed (in slices, between questions) and compared
 * with the last sweep. A file whose numbers moved is reported as changed, whether or not an event said
 * so; one that moved with no event since the last sweep is logged, since inotify did not report it
 * here: a write through a hard link in another folder (made after the file was last listed), a write
 * through a shared memory map. Such a change reaches the frontier within one sweep; every other change
 * is seen by the next command (see the top of this file).
 */
async function sweep(): Promise<void> {
  if (!existsSync(agentsDir)) return end(`${agentsDir} is gone (the home was removed?)`);
  for (const [agent, v] of [...watches]) {
    const dir = join(agentsDir, agent, 'work');
    const names = mdNames(dir);
    if (!names) continue;
    const startedAt = gen;
    const now = new Map<string, string>();
    for (let i = 0; i < names.length; i++) {
      if (i && i % SWEEP_SLICE === 0) await new Promise((r) => setImmediate(r));
      if (watches.get(agent) !== v) break;
      const k = keyOf(dir, names[i]);
      if (k) now.set(names[i], k);
    }
    if (watches.get(agent) !== v) continue;
    const moved: string[] = [];
    for (const [n, k] of now) if (v.seen.get(n) !== k) moved.push(n);
    for (const n of v.seen.keys()) if (!now.has(n)) moved.push(n);
    // A change an event reported was told already; only one no event reported is news to the host.
    for (const n of changes.swept(agent, moved, v.sweptAt, () => ++gen)) {
      post({ type: 'unseen', text: `${agent}/work/${n} changed with no file event (a write through a hard link elsewhere?): reported as changed now` });
    }
    v.seen = now;
    v.sweptAt = startedAt;
  }
  tellNews();
  setTimeout(() => void sweep(), sweepMs ?? 30_000);
}

/** When the last question came (or the keeper started): see idleCheck. */
let lastAsked = Date.now();

function answerAll(names: string[]): void {
  refresh();
  for (const name of names) {
    const file = join(paths.req, name);
    let q: KeeperQuestion;
    try {
      q = JSON.parse(readFileSync(file, 'utf8')) as KeeperQuestion;
      unlinkSync(file);
    } catch {
      continue;
    }
    // A refresh of the keeper's own answers is no use of it: files that change with nobody asking
    // (a sync tool's pulls) do not keep an idling keeper alive.
    if (!q.refresh) lastAsked = Date.now();
    // No prototype: an agent may be called `constructor` or `__proto__`.
    const watched: Record<string, number> = Object.create(null);
    for (const [a, v] of watches) watched[a] = v.since;
    // Each agent's names since its own snapshot's mark.
    const out = q.epoch === epoch && q.since && typeof q.since === 'object' ? changes.since(q.since, MAX_NAMES) : null;
    const answer: KeeperAnswer = { epoch, gen, watched, changed: out?.changed ?? null, ...(out?.untold ? { untold: out.untold } : {}) };
    // writeCache never throws: an answer it cannot write, the asker stops waiting for and lists its files.
    writeCache(join(paths.res, name), JSON.stringify(answer), join(local, 'tmp'));
  }
  sweepAnswers();
}

let lastSweep = 0;
/** Answers whose askers gave up (killed, or past their wait) are removed now and then. */
function sweepAnswers(): void {
  const now = Date.now();
  if (now - lastSweep < STALE_ANSWER_MS) return;
  lastSweep = now;
  for (const dir of [paths.res, paths.req]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      try {
        if (now - statSync(join(dir, n)).mtimeMs > STALE_ANSWER_MS) unlinkSync(join(dir, n));
      } catch {
        // Collected meanwhile.
      }
    }
  }
}

/**
 * With idleExitMs, the keeper stops once that long has passed without a question (a keeper a command
 * started by itself, store/index-auto-start.ts, does not outlive the work on its home). The questions
 * of its host's refreshes of the answers (HOLON_INDEX_REFRESHING) do not count (answerAll).
 */
function idleCheck(): void {
  if (idleExitMs === null) return;
  // A wall clock set back (a negative wait) counts from now.
  const idle = Date.now() - lastAsked;
  if (idle < 0) lastAsked = Date.now();
  if (idle >= idleExitMs) {
    post({ type: 'idle', text: `stopping: no question for ${Math.round(idle / 1000)} s` });
    process.exit(0);
  }
  setTimeout(idleCheck, Math.max(50, Math.min(60_000, idleExitMs - Math.max(0, idle))));
}

/** Stops serving: the host forgets keeper.json when this thread exits. */
function end(why: string): void {
  post({ type: 'error', text: `stopping: ${why}` });
  process.exit(0);
}

function start(): void {
  if (process.platform !== 'linux') return post({ type: 'declined', text: 'the index keeper serves on Linux only' });
  const l = overflowLimit();
  if (l === null) return post({ type: 'declined', text: 'cannot read /proc/sys/fs/inotify/max_queued_events, so an overflow could not be told' });
  limit = l;
  try {
    mkdirSync(paths.req, { recursive: true });
    mkdirSync(paths.res, { recursive: true });
    const fsType = statfsSync(paths.dir).type;
    if (!LOCAL_FS.has(fsType)) return post({ type: 'declined', text: `local/ is on a file system the keeper does not serve (statfs type 0x${fsType.toString(16)})` });
    // Questions left from before (no keeper answered them) are dropped: their askers have moved on.
    for (const d of [paths.req, paths.res]) for (const n of readdirSync(d)) unlinkSync(join(d, n));
    const req = watch(paths.req, { persistent: true }, (_type, name) => {
      counted();
      const n = name == null ? '' : String(name);
      // The folder itself gone (the home removed): nobody can ask any more.
      if (n === '' || n === 'req') return void (existsSync(paths.req) || end('local/index/req/ is gone (the home was removed?)'));
      if (!n.startsWith('.') && !asked.includes(n)) asked.push(n);
    });
    req.on('error', (err) => end(`the question folder's watch failed: ${err.message}`));
    refresh();
    setTimeout(() => void sweep(), sweepMs ?? 30_000);
    // The question folder's identity: a copy of the home (cp -a) carries this file, and its commands
    // must not wait for a keeper that watches the original's folder.
    writeCache(paths.info, JSON.stringify({ pid: process.pid, started_at: new Date().toISOString(), req: folderKey(paths.req), idle_exit_ms: idleExitMs, start: processStart(process.pid), ...(refreshCwd ? { refresh_cwd: refreshCwd } : {}) }), join(local, 'tmp'));
    post({ type: 'ready', text: `keeping the work index (${watches.size} work folder${watches.size === 1 ? '' : 's'} watched${idleExitMs === null ? '' : `; stops after ${Math.round(idleExitMs / 1000)} s without a question`})` });
    lastAsked = Date.now();
    idleCheck();
  } catch (err) {
    post({ type: 'error', text: `the index keeper could not start: ${(err as Error).message}` });
  }
}

start();
