#!/usr/bin/env node
// Watch-mode benchmark (run `npm run build` first):
//   node bench/watch.mjs [--samples N] [--timers N] [--idle-seconds S] [--json]
// Measures, on a temporary home:
//   1. latency from `holon notify` (process start, and its exit) to the runner starting;
//   2. latency from an ingress POST to the runner starting;
//   3. timer lateness (fire time minus due time, from the watcher's own report; never negative);
//   4. idle CPU and RSS of a watcher holding N live timers (default 1000) for S seconds (default 15).
// Targets (SPEC 9): event to runner < 500 ms; timers never early, < 1 s late; idle CPU near zero;
// 1,000 live timers in under 150 MB.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/holon.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SAMPLES = arg('samples', 10);
const TIMERS = arg('timers', 1000);
const IDLE_S = arg('idle-seconds', 15);
const JSON_OUT = process.argv.includes('--json');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const env = { ...process.env, NO_COLOR: '1' };
for (const k of Object.keys(env)) if (k.startsWith('HOLON_')) delete env[k];

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'holon-bench-watch-'));
  execFileSync(process.execPath, [BIN, 'init', '--agent', 'bench'], { cwd: dir, env, stdio: 'ignore' });
  return dir;
}
const holon = (dir, args) => execFileSync(process.execPath, [BIN, ...args], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

function startWatch(dir, args = []) {
  const child = spawn(process.execPath, [BIN, 'watch', ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  return { child, log: () => log };
}
async function until(fn, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(5);
  }
}
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, min: s[0], median: q(0.5), p90: q(0.9), max: s[s.length - 1] };
};

/** 1 and 2: the runner notes the time it starts (GNU date, ms); each sample re-arms the item's wait. */
async function latency() {
  const dir = project();
  const started = join(dir, 'started');
  writeFileSync(join(dir, 'runner.sh'), `#!/bin/sh\ndate +%s%3N >> "${started}"\nholon wait "$HOLON_WORK_ITEM" --for external:bench:sig --reason "next sample" >/dev/null\n`);
  chmodSync(join(dir, 'runner.sh'), 0o755);
  const md = join(dir, '.holon/agents/bench/AGENTS.md');
  writeFileSync(md, readFileSync(md, 'utf8').replace(/runner:\n(  .*\n)+/, 'runner: {preset: command, command: ./runner.sh}\n'));
  const item = holon(dir, ['new', 'bench item']);
  holon(dir, ['wait', item, '--for', 'external:bench:sig', '--reason', 'first sample']);
  // The item has run zero times: mark it seen so `new_work` does not start the first run.
  const w = startWatch(dir, ['--listen', '127.0.0.1:0']);
  const address = (await until(() => /ingress listening on http:\/\/(\S+?)\/hooks/.exec(w.log()), 10_000, 'watcher'))[1];
  const url = JSON.parse(holon(dir, ['ingress', 'url', '--json'])).url;
  void address;
  const lines = () => (existsSync(started) ? readFileSync(started, 'utf8').trim().split('\n').filter(Boolean).map(Number) : []);
  const armed = () => /status: "?active"?/.test(readFileSync(join(dir, '.holon/agents/bench/work', `${item}.md`), 'utf8'));
  const runsIdle = () => readdirSync(join(dir, '.holon/local/runs')).filter((f) => f.startsWith('r-') && f.endsWith('.json')).every((f) => JSON.parse(readFileSync(join(dir, '.holon/local/runs', f), 'utf8')).status !== 'running');
  // A first run for new work may happen; let it settle.
  await sleep(1500);
  await until(() => existsSync(join(dir, '.holon/local/runs')) ? runsIdle() && armed() : armed(), 20_000, 'settle');
  const fromSpawn = [];
  const fromExit = [];
  const fromPost = [];
  for (let i = 0; i < SAMPLES * 2; i++) {
    const before = lines().length;
    const viaHttp = i % 2 === 1;
    const t0 = Date.now();
    let t1 = t0;
    if (viaHttp) {
      const res = await fetch(url, { method: 'POST', body: JSON.stringify({ resource: 'external:bench:sig', mode: 'wake_hint' }) });
      if (res.status !== 202) throw new Error(`ingress answered ${res.status}`);
    } else {
      await new Promise((r, j) => spawn(process.execPath, [BIN, 'notify', 'external:bench:sig'], { cwd: dir, env, stdio: 'ignore' }).on('exit', (c) => (c === 0 ? r() : j(new Error(`notify exit ${c}`)))));
      t1 = Date.now();
    }
    const t = await until(() => lines().length > before && lines()[before], 10_000, 'runner start');
    if (viaHttp) fromPost.push(t - t0);
    else {
      fromSpawn.push(t - t0);
      fromExit.push(t - t1);
    }
    await until(() => runsIdle() && armed(), 20_000, 're-armed');
  }
  w.child.kill('SIGTERM');
  await new Promise((r) => w.child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  return { notify_spawn_to_runner_ms: stats(fromSpawn), notify_exit_to_runner_ms: stats(fromExit), ingress_post_to_runner_ms: stats(fromPost) };
}

/** 3: timers due over the next few seconds; lateness as the watcher reports it. */
async function lateness() {
  const dir = project();
  const w = startWatch(dir);
  await until(() => /watching /.test(w.log()), 10_000, 'watcher');
  const n = Math.max(5, SAMPLES);
  for (let i = 0; i < n; i++) holon(dir, ['timer', 'add', '--in', `${2 + (i % 4)}s`, '--summary', `bench ${i}`]);
  await until(() => (w.log().match(/timer t-\S+ fired/g) ?? []).length >= n, 30_000, 'timers fired');
  w.child.kill('SIGTERM');
  await new Promise((r) => w.child.once('exit', r));
  const late = [...w.log().matchAll(/timer t-\S+ fired .*?late (-?\d+)ms/g)].map((m) => Number(m[1]));
  rmSync(dir, { recursive: true, force: true });
  return { timer_lateness_ms: stats(late), early: late.filter((x) => x < 0).length };
}

/** 4: idle CPU and memory with many live timers, none due during the measurement. */
async function idle() {
  const dir = project();
  const home = join(dir, '.holon');
  const { createTimer, newTimerId } = await import(pathToFileURL(join(ROOT, 'dist/store/timers.js')).href);
  const { openHome } = await import(pathToFileURL(join(ROOT, 'dist/store/home.js')).href);
  const h = openHome({ home, cwd: dir, env: {} });
  const due = new Date(Date.now() + 86_400_000 + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (let i = 0; i < TIMERS; i++) {
    await createTimer(h, { id: newTimerId(), agent: 'bench', work_item: null, summary: `idle ${i}`, status: 'active', created_at: now, first_due_at: due, every: i % 2 ? '1h' : null, until: null, next_due_at: due, last_fired_at: null, last_slot_at: null, fire_count: 0, missed_count: 0, cancelled_at: null, revision: 1 });
  }
  const w = startWatch(dir);
  await until(() => /watching /.test(w.log()), 20_000, 'watcher');
  await sleep(2000);
  const pid = w.child.pid;
  const cpu = () => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in seconds (CLK_TCK 100)
  };
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  const c0 = cpu();
  const t0 = Date.now();
  let peak = rss();
  const end = t0 + IDLE_S * 1000;
  while (Date.now() < end) {
    await sleep(500);
    peak = Math.max(peak, rss());
  }
  const cpuPct = ((cpu() - c0) / ((Date.now() - t0) / 1000)) * 100;
  w.child.kill('SIGTERM');
  await new Promise((r) => w.child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  return { live_timers: TIMERS, idle_seconds: IDLE_S, idle_cpu_percent: Number(cpuPct.toFixed(2)), rss_mb: Number(peak.toFixed(1)) };
}

const result = { ...(await latency()), ...(await lateness()), ...(await idle()) };
if (JSON_OUT) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
else {
  const f = (s) => `median ${s.median} ms, p90 ${s.p90} ms, max ${s.max} ms (n=${s.n})`;
  console.log(`notify (spawn) -> runner start: ${f(result.notify_spawn_to_runner_ms)}`);
  console.log(`notify (exit)  -> runner start: ${f(result.notify_exit_to_runner_ms)}   target < 500 ms`);
  console.log(`ingress POST   -> runner start: ${f(result.ingress_post_to_runner_ms)}   target < 500 ms`);
  console.log(`timer lateness: ${f(result.timer_lateness_ms)}, early fires: ${result.early}   target 0 early, < 1000 ms late`);
  console.log(`idle watcher with ${result.live_timers} timers over ${result.idle_seconds}s: CPU ${result.idle_cpu_percent}%, RSS ${result.rss_mb} MB   target ~0%, < 150 MB`);
}
