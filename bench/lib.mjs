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
