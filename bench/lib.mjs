// Shared benchmark helpers: whole-process timing of the real binary.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/holon.js', import.meta.url));

/**
 * The machine's content cache (store/content-cache.ts) for every holon a benchmark runs: a folder of
 * the bench's own, never the user's ~/.cache (HOLON_CACHE_DIR set by the caller wins).
 */
export const CACHE_DIR = fileURLToPath(new URL('./.homes/content-cache', import.meta.url));
process.env.HOLON_CACHE_DIR ??= CACHE_DIR;

/**
 * A bare `node -e 0` is the yardstick of the ratios the benchmarks print, so what the environment adds
 * to every node start is taken out of this process's environment, and so of every command a benchmark
 * starts (both sides of each ratio, keepers, peers). NODE_EXTRA_CA_CERTS makes node 20 read and parse
 * that certificate bundle as it starts: on the machines of 2026-12, the system's 144 certificates, some
 * 32 of a `node -e 0`'s 51 ms of cpu. NODE_OPTIONS can load anything. HOLON_BENCH_ENV=keep keeps them
 * (the README's tables before 2026-12-07 15:00 UTC were measured so). `startVars`: what was taken out,
 * for speed.mjs to measure and print.
 */
export const startVars = {};
if (process.env.HOLON_BENCH_ENV !== 'keep') {
  for (const v of ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS']) {
    if (process.env[v] === undefined) continue;
    startVars[v] = process.env[v];
    delete process.env[v];
  }
}

/** Runs `holon ARGS` `runs` times (after one warm-up); returns the median wall time in ms. */
export function medianMs(args, { cwd, runs = 7, env = {}, warmup = 1 } = {}) {
  const times = [];
  for (let i = 0; i < runs + warmup; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0) throw new Error(`holon ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i >= warmup) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export function printTable(title, rows) {
  console.log(`\n${title}`);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const r of rows) console.log('  ' + r.map((c, i) => String(c).padEnd(widths[i])).join('  '));
}

/** `--name VALUE` from this script's arguments, else `dflt`. */
export function opt(name, dflt) {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i === -1 ? dflt : args[i + 1];
}
