import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Home } from './home.js';
import { KEEPER_HOST, keeperPaths, liveHost } from './index-keeper-files.js';
import { trace } from './trace.js';

/**
 * A command that had to stat every work file of a big home starts an index keeper for the next ones
 * (`holon index --idle-exit 1h`, detached, its log in local/index/keeper.log), as git starts its
 * fsmonitor daemon and Watchman its server: without one, a frontier costs a stat per file (some 5 us
 * each here, 0.25 s at 50,000 files), and developers and agents run it dozens of times a day. With one,
 * the next commands stat only what changed. It stops after an hour without a question, and when its
 * home is removed; `holon index --stop` stops it, `holon index --status` shows it.
 *
 * Not started:
 * - below AUTO_AT work files (HOLON_INDEX_AUTO=N sets the number; 0 or `off`: never), where the stats
 *   cost less than a keeper's memory is worth;
 * - when `CI` is set (a CI job runs a few commands on a fresh clone and goes: a keeper would only
 *   compete with it), off Linux, with HOLON_INDEX=0 (kept-listing.ts asks none then);
 * - within RETRY_MS of the last try (local/index/auto-start): a keeper that declines (a file system it
 *   does not serve) or fails is not started again by every command, and two commands at once start
 *   one (the keeper's claim, index-keeper-claim.ts, settles any race that is left);
 * - where local/ cannot be written.
 * The answers are the same with or without it; only their cost differs.
 */
const AUTO_AT = 2000;
const RETRY_MS = 10 * 60_000;
const IDLE_EXIT = '1h';

/** Whether the setting turns the start off, else the number of files from which it starts one. */
const OFF = new Set(['0', 'off', 'false', 'no']);

function threshold(env: NodeJS.ProcessEnv): number | null {
  const v = env.HOLON_INDEX_AUTO?.trim().toLowerCase();
  if (v && OFF.has(v)) return null;
  if (env.CI && !OFF.has(env.CI.trim().toLowerCase())) return null;
  return v && Number(v) > 0 ? Number(v) : AUTO_AT;
}

/** Past this size the keeper's log is started afresh; below it each start appends (a loser's lines too). */
const LOG_MAX = 1 << 20;

const sizeOf = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

function here(home: Home): string {
  try {
    return process.cwd();
  } catch {
    return home.dir;
  }
}

/** Starts a keeper for this home if it is big enough and none was tried lately (see above); never throws. */
export function autoStartKeeper(home: Home, files: number): void {
  const at = threshold(process.env);
  // (A process that hosts a keeper, or tried to, never starts another: holon watch, holon index.)
  if (at === null || files < at || process.platform !== 'linux' || (globalThis as { [KEEPER_HOST]?: boolean })[KEEPER_HOST]) return;
  const paths = keeperPaths(home.local);
  try {
    const ago = Date.now() - statSync(paths.tried).mtimeMs;
    // Either way: a clock set back by less than that waits too, by more tries again.
    if (Math.abs(ago) < RETRY_MS) return trace(`no keeper started (one was started ${Math.round(ago / 1000)} s ago)`);
  } catch {
    // Never tried.
  }
  if (liveHost(home.local) !== null) return trace('no keeper started (one is starting)');
  let log: number | null = null;
  try {
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.tried, `${process.pid}\n`);
    log = openSync(paths.log, sizeOf(paths.log) > LOG_MAX ? 'w' : 'a');
    const bin = fileURLToPath(new URL('../../bin/holon.js', import.meta.url));
    // What this command ran with, but its trace (refreshEnv, runtime/frontier-refresh.ts, leaves out
    // the actor where the keeper computes answers).
    const { HOLON_TRACE_INDEX: _t, ...env } = process.env;
    // In this command's folder: the checkout its answers are computed for is this command's (ops/frontier.ts).
    const child = spawn(process.execPath, [bin, '--home', home.dir, 'index', '--idle-exit', IDLE_EXIT], { cwd: here(home), env, detached: true, stdio: ['ignore', log, log] });
    child.on('error', () => undefined);
    child.unref();
    trace(`started an index keeper (pid ${child.pid}; its log: ${paths.log})`);
  } catch (err) {
    trace(`no keeper started: ${(err as Error).message}`);
  } finally {
    if (log !== null) closeSync(log);
  }
}
