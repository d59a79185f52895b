#!/usr/bin/env node
// Benchmark: the targets of issue 14 in one table, as ratios to a bare `node -e 0` measured in the same
// run (each timed command is interleaved with one), cpu (user+sys of the child, from getrusage) and wall,
// median of N runs; side by side with `ticket` (the peer in ../shared/peers) on the same work graph.
//
// Usage: node bench/speed.mjs [--runs 7] [--sizes 1000,10000]
//   HOLON_BENCH_50K=1   adds the 50k rows (generating that home takes a while)
//   HOLON_PEERS=DIR     the peers folder (ticket, peer-gen.py); default ../shared/peers from the repo.
//                       Without it the ticket columns say so and stay empty.
//   HOLON_BENCH_ENV=keep  keeps NODE_EXTRA_CA_CERTS and NODE_OPTIONS for the timed commands (lib.mjs).
// The graph is peer-gen.py's rule: 30 % closed, every third item depends on the one before, priority
// i % 5. holon's home is generated from the same rule (one file per item), and is a git repository.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './rusage.mjs';
import { opt, startVars } from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin/holon.js');
const RUNS = Number(opt('runs', process.env.HOLON_BENCH_RUNS ?? 7));
const SIZES = String(opt('sizes', '1000,10000')).split(',').map(Number);
if (process.env.HOLON_BENCH_50K && !SIZES.includes(50000)) SIZES.push(50000);
const PEERS = resolve(ROOT, process.env.HOLON_PEERS ?? '../shared/peers');
const TICKET = join(PEERS, 'ticket');
const HAVE_TICKET = existsSync(TICKET) && existsSync(join(PEERS, 'peer-gen.py'));
// HOLON_INDEX_AUTO=0: a row says whether a keeper runs; only the rows of a keeper a command started turn it on.
const ENV = { HOLON_AGENT: 'main', HOLON_INDEX_AUTO: '0', GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@x' };

// What the environment adds to every node start was taken out (lib.mjs, startVars): what it costs a
// `node -e 0`, measured here (the variables given back to one of each interleaved pair) and printed.
const START_VARS = Object.keys(startVars);
const envCost = START_VARS.length ? measure(Array.from({ length: RUNS + 1 }, () => ['env', ...Object.entries(startVars).map(([k, v]) => `${k}=${v}`), process.execPath, '-e', '0']), {}) : null;
const them = START_VARS.length > 1 ? 'them' : 'it';

// ---- homes: peer-gen.py's rule, in holon's format
const closed = (i) => i % 10 < 3;
const hid = (i) => `w-${i.toString(32).padStart(8, '0')}`;
/** Open items with no dependency (safe targets for progress/wait/pick). */
const targets = (n, count) => Array.from({ length: n }, (_, i) => i).filter((i) => !closed(i) && i % 3 !== 0 && i > 10).slice(0, count).map(hid);

/** The last item held by an open dependency, of priority P4: never among the not_runnable entries shown. */
const hiddenBlocked = (n) => {
  let i = n - 1;
  while (!(i % 3 === 0 && i % 5 === 4 && !closed(i) && !closed(i - 1))) i--;
  return hid(i);
};

function holonHome(n) {
  const dir = join(ROOT, 'bench/.homes', `speed-${n}`);
  if (existsSync(join(dir, '.complete'))) {
    // The records as generated: a run before completed, claimed and edited some (the complete rows take
    // the top runnable items, which may be the targets of the wait row). Caches in local/ stay.
    // (On the branch the records were generated on: the pull row leaves it there, a run cut short may not.)
    spawnSync('git', ['checkout', '-q', '-f', 'bench-base'], { cwd: dir, stdio: 'ignore' });
    spawnSync('git', ['checkout', '-q', '--', '.'], { cwd: dir, stdio: 'ignore' });
    spawnSync('git', ['clean', '-qfd', '--', '.holon/agents'], { cwd: dir, stdio: 'ignore' });
    // git's index as a fresh clone has it (a copied home keeps stale numbers until a `git status`):
    // the cold rows take from the machine content cache only what git vouches for.
    spawnSync('git', ['update-index', '-q', '--refresh'], { cwd: dir, stdio: 'ignore' });
    return dir;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync(process.execPath, [BIN, 'init', '--agent', 'main'], { cwd: dir, stdio: 'ignore' });
  const work = join(dir, '.holon/agents/main/work');
  const at = '2026-01-01T00:00:00Z';
  for (let i = 0; i < n; i++) {
    const deps = i % 3 === 0 && i > 0 ? `depends_on:\n  - "${hid(i - 1)}"\n` : '';
    const text = `---\nid: "${hid(i)}"\ntitle: "Task ${i}"\nagent: "main"\nstatus: "${closed(i) ? 'done' : 'open'}"\nclass: "advancement_task"\npriority: "P${i % 5}"\ncreated_at: "${at}"\nupdated_at: "${at}"\nrevision: 1\n${deps}---\n\n## Objective\n\nBody of task ${i}.\n\n## Progress\n\n## Evidence\n\n## On return\n\n`;
    writeFileSync(join(work, `${hid(i)}.md`), text);
  }
  const git = (...a) => execFileSync('git', a, { cwd: dir, stdio: 'ignore', env: { ...process.env, ...ENV } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'bench home');
  writeFileSync(join(dir, '.complete'), '');
  return dir;
}

/**
 * Branches for the pull row in a home: `bench-base` (the records as generated) and `bench-pulled`,
 * 100 items later as another clone left them (90 with a progress note, 10 done), made with git's
 * plumbing so the work tree is not touched. Items at the end of the range: none is a target of the
 * other rows.
 */
function pullBranches(dir, n) {
  const git = (args, input) => execFileSync('git', args, { cwd: dir, input, encoding: 'utf8', env: { ...process.env, ...ENV, GIT_INDEX_FILE: join(dir, '.git/bench-pull-index') } }).trim();
  if (spawnSync('git', ['rev-parse', '--verify', '-q', 'bench-pulled'], { cwd: dir, stdio: 'ignore' }).status === 0) return;
  spawnSync('git', ['branch', '-f', 'bench-base', 'HEAD'], { cwd: dir, stdio: 'ignore' });
  const picked = [];
  for (let i = n - 1; picked.length < 100; i--) if (!closed(i) && i % 3 !== 0) picked.push(i);
  const tmp = join(dir, '.git/bench-pull');
  mkdirSync(tmp, { recursive: true });
  const paths = picked.map((i, k) => {
    const path = `.holon/agents/main/work/${hid(i)}.md`;
    let text = git(['show', `HEAD:${path}`]) + '\n';
    text = text.replace('## Progress\n\n', '## Progress\n\n- 2026-01-02T00:00:00Z (agent:main) pulled from another clone\n\n');
    if (k % 10 === 0) text = text.replace('status: "open"', 'status: "done"').replace('## Evidence\n\n', '## Evidence\n\n- 2026-01-02T00:00:00Z done in another clone\n\n');
    writeFileSync(join(tmp, `${hid(i)}.md`), text);
    return path;
  });
  const blobs = git(['hash-object', '-w', '--stdin-paths'], picked.map((i) => join(tmp, `${hid(i)}.md`)).join('\n')).split('\n');
  git(['read-tree', 'HEAD']);
  git(['update-index', '--index-info'], paths.map((p, k) => `100644 ${blobs[k]}\t${p}`).join('\n') + '\n');
  const commit = git(['commit-tree', git(['write-tree']), '-p', 'HEAD', '-m', 'bench: 100 items as another clone left them'], '');
  git(['branch', '-f', 'bench-pulled', commit]);
  rmSync(tmp, { recursive: true, force: true });
  rmSync(join(dir, '.git/bench-pull-index'), { force: true });
}

function ticketHome(n) {
  const dir = join(ROOT, 'bench/.homes', `peers-${n}`);
  if (!existsSync(join(dir, '.complete'))) {
    rmSync(dir, { recursive: true, force: true });
    execFileSync('python3', [join(PEERS, 'peer-gen.py'), String(n), dir], { stdio: 'ignore' });
    writeFileSync(join(dir, '.complete'), '');
  }
  return join(dir, 'ticket');
}

/**
 * An index keeper (`holon index`) for the home at `cwd`, once it answers (null where it declines: not
 * Linux, an unknown file system). `refresh`: false, it does not compute the answers again
 * (HOLON_INDEX_REFRESH=0), so a row measures what a command does itself; true, 50 ms after a change as
 * it does by default; 'late', only after an hour of quiet (HOLON_INDEX_REFRESH_SETTLE_MS), so a row can
 * time a command that comes before its refresh.
 */
function startKeeper(cwd, refresh = false) {
  const env = { ...process.env, ...ENV, ...(!refresh ? { HOLON_INDEX_REFRESH: '0' } : refresh === 'late' ? { HOLON_INDEX_REFRESH_SETTLE_MS: '3600000' } : {}) };
  // Started through a shell that exits at once, so the keeper is not this (synchronous) script's child:
  // its exit is reaped by init, and `kill -0` below stops answering once it is gone.
  const pid = Number(spawnSync('bash', ['-c', `${sh([process.execPath, BIN, 'index'])} >/dev/null 2>&1 & echo $!`], { cwd, env, encoding: 'utf8' }).stdout.trim());
  const stop = () => {
    spawnSync('bash', ['-c', `kill ${pid} 2>/dev/null; while kill -0 ${pid} 2>/dev/null; do sleep 0.05; done`]);
  };
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const st = spawnSync(process.execPath, [BIN, 'index', '--status', '--json'], { cwd, env: { ...process.env, ...ENV }, encoding: 'utf8' });
    try {
      if (JSON.parse(st.stdout).keeper?.pid === pid) return { stop };
    } catch {
      // Not yet.
    }
    if (spawnSync('kill', ['-0', String(pid)]).status !== 0) return null;
    spawnSync('sleep', ['0.1']);
  }
  stop();
  return null;
}

// ---- measuring
const holonRuns = (argvOf) => Array.from({ length: RUNS + 1 }, (_, i) => [process.execPath, BIN, ...argvOf(i)]);
const sh = (argv) => argv.map((a) => `'${String(a).replace(/'/g, `'\\''`)}'`).join(' ');
// Before a cold run that evaluates: no local/, and no answer kept by content in the machine's cache.
const noKept = process.env.HOLON_CACHE_DIR === 'off' ? 'rm -rf .holon/local' : `rm -rf .holon/local ${sh([process.env.HOLON_CACHE_DIR])}/answer-*.bin`;
const ratio = (r) => ({ cpu: r.cpu / r.baseCpu, wall: r.wall / r.baseWall, ms: r.cpu, base: r.baseCpu });
const fmt = (x) => (x == null ? '-' : x.failed ? `failed (${x.failed})` : `${x.cpu.toFixed(2)}x / ${x.wall.toFixed(2)}x`);

/**
 * holon reads again, on every call, each work file changed in the last 2 s (RACY_MS, src/store/cache-file.ts:
 * until then its stat numbers cannot vouch for its content), some 0.2 ms a file. A row that says
 * "unchanged" or "nothing changed" is measured past that window: its prepare is run once, then the
 * files the rows before it and that prepare wrote are left to settle. (Rows of a change measure the
 * change just made, racy as it is.)
 */
function settled(cwd, prepare, env = ENV) {
  const r = spawnSync('bash', ['-c', `${prepare} >/dev/null && sleep 2.1`], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`before a row, ${prepare} failed (exit ${r.status}): ${r.stderr}`);
}

const rows = [];
const bases = [];
function row(target, size, goal, r, peer = null, peerName = '') {
  if (r) bases.push(r.base);
  rows.push({ target, size, goal, r, peer, peerName });
  // As it goes (the table comes at the end): a long run shows where it is.
  process.stderr.write(`  ${target} (${size}): ${fmt(r)}\n`);
}

function maxRssMb(argv, cwd, prepare) {
  if (!existsSync('/usr/bin/time')) return null;
  if (prepare) spawnSync('bash', ['-c', prepare], { cwd });
  const r = spawnSync('/usr/bin/time', ['-f', '%M', ...argv], { cwd, env: { ...process.env, ...ENV }, encoding: 'utf8', maxBuffer: 256 << 20 });
  const kb = Number(r.stderr.trim().split('\n').pop());
  return Number.isFinite(kb) ? kb / 1024 : null;
}

const t0 = Date.now();
for (const n of SIZES) {
  const cwd = holonHome(n);
  const ids = targets(n, 3 * (RUNS + 1));
  const tdir = HAVE_TICKET ? ticketHome(n) : null;
  // ticket's `ready` takes seconds at 10k: 3 runs of it are enough.
  // At 50k, `ticket ready` passes every file to one awk and fails (argument list too long): said so.
  const ticket = (argvOf, runs = RUNS) => {
    if (!tdir) return null;
    try {
      return ratio(measure(Array.from({ length: runs + 1 }, (_, i) => ['bash', TICKET, ...argvOf(i)]), { cwd: tdir }));
    } catch (err) {
      return { failed: String(err.message).match(/exit \d+/)?.[0] ?? 'failed' };
    }
  };
  const m = (argvOf, o = {}) => ratio(measure(holonRuns(argvOf), { cwd, env: ENV, ...o }));
  const size = `${n / 1000}k`;
  row('holon --version', size, 1.5, m(() => ['--version']));
  row('holon show ID', size, 1.5, m((i) => ['show', ids[i]]));
  row('holon progress ID TEXT', size, 1.5, m((i) => ['progress', ids[i], `bench note ${i}`]), ticket((i) => ['add-note', `bn-${String(Number.parseInt(ids[i].slice(2), 32)).padStart(4, '0')}`, `bench note ${i}`]), 'ticket add-note');
  row('holon pick ID', size, 1.5, m((i) => ['pick', ids[i]]));
  row('holon wait ID --for external:...', size, 1.5, m((i) => ['wait', ids[RUNS + 1 + i], '--for', `external:bench/${Date.now()}-${i}`, '--reason', 'bench']));
  // With no id, pick claims the top runnable item: it reads the frontier's answer (from its cache when
  // nothing changed; ops/pick.ts). Before each run the top is claimed already and the answer warm.
  const holonSh = (...a) => sh([process.execPath, BIN, ...a]);
  const claimedWarm = `${holonSh('pick')} >/dev/null; ${holonSh('frontier', '--json')} >/dev/null`;
  settled(cwd, claimedWarm);
  row('holon pick (no id), nothing changed', size, 1.5, m(() => ['pick'], { prepare: claimedWarm }));
  if (n >= 10000) {
    const goal = n >= 50000 ? 2 : 1.5;
    const frontier = () => ['frontier', '--json'];
    const warm = `${sh([process.execPath, BIN, 'frontier', '--json'])}`;
    const readyTicket = ticket(() => ['ready'], Math.min(RUNS, 3));
    settled(cwd, warm);
    row('frontier --json, warm, unchanged', size, goal, m(frontier, { prepare: warm }), readyTicket, 'ticket ready');
    row('frontier --json, warm, after a progress', size, goal, m(frontier, { prepare: `${warm} >/dev/null; ${sh([process.execPath, BIN, 'progress', ids[2 * (RUNS + 1)], 'bench'])}` }));
    row('frontier --json, warm, after an edit --title', size, goal, m(frontier, { prepare: `${warm} >/dev/null; ${sh([process.execPath, BIN, 'edit', ids[2 * (RUNS + 1) + 1], '--title'])} "Task edited $RANDOM"` }));
    // Before each run of a "no caches" row: no local/ and no machine content cache (lib.mjs sets the bench's own).
    const noCaches = process.env.HOLON_CACHE_DIR === 'off' ? 'rm -rf .holon/local' : `rm -rf .holon/local ${sh([process.env.HOLON_CACHE_DIR])}`;
    if (n === 10000) {
      // Cold: no local/ (a fresh clone). The machine's caches are warm after the first run: the answer
      // kept by content (store/content-answer.ts, a state the machine evaluated before) and the content
      // cache (store/content-cache.ts). The second row removes the kept answers before each run (a
      // state it has not evaluated: entries from the content cache, then an evaluation); the third
      // removes every cache: no caches at all.
      // A fresh clone's records are as committed: the rows before changed some (progress notes, claims,
      // edits), which git's index would not vouch for. Put back, and git's index refreshed once they are
      // older than its own timestamp (racily clean files vouch for nothing, as in git).
      spawnSync('bash', ['-c', 'git checkout -q -- .holon/agents && git clean -qfd -- .holon/agents && sleep 1 && git update-index -q --refresh'], { cwd, stdio: 'ignore' });
      row('frontier --json, cold: no local/, machine caches warm', size, 5, m(frontier, { prepare: 'rm -rf .holon/local' }));
      row('frontier --json, cold: no local/, machine content cache warm, no answer kept', size, 5, m(frontier, { prepare: noKept }));
      row('frontier --json, cold: no caches at all', size, 5, m(frontier, { prepare: noCaches }));
      // A `git pull` of 100 changed items (a fast-forward: git rewrites those files, 10 of them now
      // done): before each run the answer is made at the commit before, and the checkout moved on.
      pullBranches(cwd, n);
      // A fresh clone of the commit after the one the machine evaluated (100 items changed): the answer
      // kept at bench-base (the last row's) put back before each run, the checkout at bench-pulled, its
      // index refreshed once its files are older than it (as a clone's is), no local/.
      const machine = process.env.HOLON_CACHE_DIR;
      const keptAt = machine === 'off' || !existsSync(machine) ? [] : readdirSync(machine).filter((f) => f.startsWith('answer-') && f.endsWith('.bin')).map((f) => join(machine, f));
      if (keptAt.length === 1) {
        copyFileSync(keptAt[0], `${keptAt[0]}.bench-base`);
        const nextCommit = `cp ${sh([`${keptAt[0]}.bench-base`, keptAt[0]])} && git checkout -q -f bench-pulled && sleep 1 && git update-index -q --refresh && rm -rf .holon/local`;
        row('frontier --json, cold: no local/, a clone of the commit after the one the machine evaluated (100 items changed)', size, 5, m(frontier, { prepare: nextCommit }));
        rmSync(`${keptAt[0]}.bench-base`, { force: true });
        spawnSync('git', ['checkout', '-q', '-f', 'bench-base'], { cwd, stdio: 'ignore' });
      }
      row('frontier --json, the first after a git pull of 100 changed items', size, 5, m(frontier, { prepare: `git checkout -q -f bench-base; ${warm} >/dev/null; git checkout -q -f bench-pulled` }));
      spawnSync('git', ['checkout', '-q', '-f', 'bench-base'], { cwd, stdio: 'ignore' });
      spawnSync('bash', ['-c', `${warm} >/dev/null`], { cwd, env: { ...process.env, ...ENV } });
    }
    // A big home with no keeper: the first frontier stats every file and starts one
    // (store/index-auto-start.ts), detached: its cpu is not this command's. Before each run, the one
    // the run before started is stopped (once it is up) and the last try forgotten.
    const autoEnv = { ...ENV, HOLON_INDEX_AUTO: '', CI: '' };
    const stopAuto = `[ -f .holon/local/index/auto-start ] && for i in $(seq 100); do ${holonSh('index', '--status', '--json')} | grep -q '"pid"' && break; sleep 0.1; done; ${holonSh('index', '--stop')}; rm -f .holon/local/index/auto-start`;
    row('frontier --json, no keeper running: the call that starts one', size, goal, m(frontier, { env: autoEnv, prepare: `${stopAuto}; ${warm}` }));
    // Then the next ones, with the keeper it started (which also computes the answers again after a change).
    spawnSync('bash', ['-c', `${holonSh('frontier', '--json')} >/dev/null; for i in $(seq 100); do ${holonSh('index', '--status', '--json')} | grep -q '"pid"' && break; sleep 0.1; done`], { cwd, env: { ...process.env, ...autoEnv } });
    settled(cwd, warm, autoEnv);
    row('frontier --json, warm, unchanged, with the keeper a command started', size, goal, m(frontier, { env: autoEnv, prepare: warm }));
    settled(cwd, claimedWarm, autoEnv);
    row('holon pick (no id), nothing changed, with the keeper a command started', size, 1.5, m(() => ['pick'], { env: autoEnv, prepare: claimedWarm }));
    spawnSync('bash', ['-c', `${holonSh('index', '--stop')}; rm -f .holon/local/index/auto-start`], { cwd, env: { ...process.env, ...ENV } });
    // The same with an index keeper running (`holon index`; `holon watch` runs one too): the frontier
    // then stats only the files the keeper saw change (docs/frontier.md, "The index keeper").
    const completed = `${holonSh('pick')} >/dev/null; ${holonSh('complete', '--result', 'bench', '--evidence', 'bench', '--no-followup', 'bench')} >/dev/null`;
    const keeper = startKeeper(cwd);
    if (keeper) {
      try {
        settled(cwd, warm);
        row('frontier --json, warm, unchanged, with a keeper', size, goal, m(frontier, { prepare: warm }));
        row('frontier --json, warm, after a progress, with a keeper', size, goal, m(frontier, { prepare: `${warm} >/dev/null; ${sh([process.execPath, BIN, 'progress', ids[2 * (RUNS + 1) + 2], 'bench'])}` }));
        row('frontier --json, warm, after an edit --title, with a keeper', size, goal, m(frontier, { prepare: `${warm} >/dev/null; ${sh([process.execPath, BIN, 'edit', ids[2 * (RUNS + 1) + 3], '--title'])} "Task edited $RANDOM"` }));
        // A priority moves the item in its channel: the entry is patched and moved (frontier-titles.ts).
        const flip = join(cwd, '.holon/local/bench-priority');
        row('frontier --json, warm, after an edit --priority, with a keeper', size, goal, m(frontier, { prepare: `${warm} >/dev/null; p=$(( $(cat ${flip} 2>/dev/null || echo 1) == 1 ? 3 : 1 )); echo $p > ${flip}; ${sh([process.execPath, BIN, 'edit', ids[2 * (RUNS + 1) + 4], '--priority'])} P$p` }));
        // A blocked item past the 50 not_runnable entries shown, between P3 and P4: it stays out of
        // the answer (store/frontier-cut.ts), where it once cost a whole evaluation.
        const flop = join(cwd, '.holon/local/bench-priority-hidden');
        row('frontier --json, warm, after an edit --priority not shown, with a keeper', size, goal, m(frontier, { prepare: `${warm} >/dev/null; p=$(( $(cat ${flop} 2>/dev/null || echo 3) == 3 ? 4 : 3 )); echo $p > ${flop}; ${sh([process.execPath, BIN, 'edit', hiddenBlocked(n), '--priority'])} P$p` }));
        settled(cwd, claimedWarm);
        row('holon pick (no id), nothing changed, with a keeper', size, 1.5, m(() => ['pick'], { prepare: claimedWarm }));
        // The loop of the day (before each run: the top item picked and completed), then the next one
        // picked. A status change is patched in: the changed items and their readers evaluated again.
        // (A keeper that does not compute the answers again: the pick patches the answer and stores it.)
        row('holon pick (no id) after a complete, with a keeper that does not refresh the answers', size, 1.5, m(() => ['pick'], { prepare: completed }));
        // A person's loop: a look (`holon frontier`, 10 a channel) after the complete, then the pick. The
        // look is cut from the default answer, which it patches (store/frontier-limit.ts); the pick reuses it.
        row('holon frontier (10 a channel) after a complete, with a keeper that does not refresh the answers', size, goal, m(() => ['frontier'], { prepare: completed }));
        row('holon pick (no id) after a complete and a holon frontier, with a keeper that does not refresh the answers', size, 1.5, m(() => ['pick'], { prepare: `${completed}; ${holonSh('frontier')} >/dev/null` }));
      } finally {
        keeper.stop();
      }
      // The loop of the day with a keeper that computes the answers again after a change, timed before its
      // refresh (an hour away here): the pick reads the top of runnable as a patch leaves it, and stores
      // nothing, since the refresh will (ops/frontier-patched.ts leftToKeeper); nor does a look. Before each run the answer is
      // stored after the last run's claim, so each run finds the one change of its complete.
      const late = startKeeper(cwd, 'late');
      if (late) {
        try {
          row('holon pick (no id) after a complete, with a keeper, before it refreshed the answer', size, 1.5, m(() => ['pick'], { prepare: `${warm} >/dev/null; ${completed}` }));
          // A look there patches the whole answer to cut its view, and stores neither.
          row('holon frontier (10 a channel) after a complete, with a keeper, before it refreshed the answer', size, goal, m(() => ['frontier'], { prepare: `${warm} >/dev/null; ${completed}` }));
        } finally {
          late.stop();
        }
      }
      // The same loop with a keeper that computes the answers again after a change (runtime/frontier-refresh.ts),
      // given the moment an agent takes between two commands: the refresh, and the window after a change
      // in which a file's numbers do not vouch for it (RACY_MS, 2 s), are over when the pick comes.
      const refreshing = startKeeper(cwd, true);
      if (refreshing) {
        try {
          row('holon pick (no id) after a complete, with a keeper that refreshed the answer', size, 1.5, m(() => ['pick'], { prepare: `${completed}; sleep ${n >= 50000 ? 5 : 3}` }));
        } finally {
          refreshing.stop();
        }
      }
    }
  }
  if (n === Math.max(...SIZES)) {
    const argv = [process.execPath, BIN, 'frontier', '--json'];
    const none = maxRssMb(argv, cwd, process.env.HOLON_CACHE_DIR === 'off' ? 'rm -rf .holon/local' : `rm -rf .holon/local ${sh([process.env.HOLON_CACHE_DIR])}`);
    // (Without the answer kept by content, which a cold call restores rather than evaluates.)
    const cold = maxRssMb(argv, cwd, noKept);
    const warm = maxRssMb(argv, cwd);
    rows.push({ target: 'max RSS, frontier --json (cold, content cache warm / warm)', size, goal: '150 MB', memory: [cold, warm] });
    rows.push({ target: 'max RSS, frontier --json (cold, no caches at all)', size, goal: '150 MB', memory: [none] });
  }
}

// ---- the table
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const table = [['target', 'items', 'holon cpu / wall vs node -e 0', 'goal', 'met', 'ticket (same graph) cpu / wall']];
for (const r of rows) {
  if (r.memory) {
    const known = r.memory.every((x) => x != null);
    const ok = known && Math.max(...r.memory) < 150;
    table.push([r.target, r.size, known ? r.memory.map((x) => `${x.toFixed(0)} MB`).join(' / ') : 'no /usr/bin/time', `< ${r.goal}`, known ? (ok ? 'yes' : 'NO') : '?', '']);
    continue;
  }
  const met = r.r.cpu <= r.goal && r.r.wall <= r.goal ? 'yes' : 'NO';
  const peer = r.peerName ? (r.peer ? `${r.peerName}: ${fmt(r.peer)}` : `${r.peerName}: (no peers folder)`) : '';
  table.push([r.target, r.size, `${fmt(r.r)} (${r.r.ms.toFixed(0)} ms cpu)`, `<= ${r.goal}x`, met, peer]);
}
console.log(`\nissue 14 targets: ratios to \`node -e 0\` in the same run (median ${med(bases).toFixed(0)} ms cpu), median of ${RUNS} runs; node ${process.version}, ${os()}`);
if (envCost) console.log(`  (run without ${START_VARS.join(' and ')}, which the environment sets: with ${them} \`node -e 0\` took ${envCost.cpu.toFixed(0)} ms of cpu, without ${envCost.baseCpu.toFixed(0)}, interleaved; HOLON_BENCH_ENV=keep keeps ${them})`);
else if (process.env.HOLON_BENCH_ENV === 'keep') console.log('  (HOLON_BENCH_ENV=keep: run with the environment as it is)');
const widths = table[0].map((_, i) => Math.max(...table.map((r) => String(r[i]).length)));
for (const r of table) console.log('  ' + r.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd());
if (!HAVE_TICKET) console.log(`  (ticket columns empty: no ticket/peer-gen.py in ${PEERS}; set HOLON_PEERS to the peers folder)`);
console.log(`  (took ${((Date.now() - t0) / 1000).toFixed(0)} s)`);

function os() {
  const cpus = (() => { try { return execFileSync('nproc', { encoding: 'utf8' }).trim(); } catch { return '?'; } })();
  const load = (() => { try { return execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' '); } catch { return '?'; } })();
  return `${process.platform}, ${cpus} cores, load ${load}`;
}
