import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sameProcess } from './pid.js';

/**
 * Where an index keeper (runtime/index-keeper.ts) and the commands that ask it meet: local/index/, one
 * home's machine-local state, never in git.
 * - keeper.json: `{pid, started_at, req}` of the live keeper (req: its question folder's dev:ino), written
 *   by it once its watches are set;
 * - req/NAME: a question, renamed into place (that rename is also the keeper's probe, see below);
 * - res/NAME: its answer, renamed into place;
 * - host.json: `{pid, dir}` of the process that hosts (or is starting) the keeper, taken under a lock
 *   (claimHost), so that two processes starting at once do not both keep the index;
 * - auto-start and keeper.log: when a command last started a keeper itself, and that keeper's log
 *   (store/index-auto-start.ts).
 */
export const keeperPaths = (local: string) => {
  const dir = join(local, 'index');
  return { dir, info: join(dir, 'keeper.json'), req: join(dir, 'req'), res: join(dir, 'res'), host: join(dir, 'host.json'), tried: join(dir, 'auto-start'), log: join(dir, 'keeper.log'), refreshFailed: join(dir, 'refresh-failed') };
};

/**
 * Set on a process that hosts, or tried to host, its home's keeper (holon watch, holon index): it never
 * starts one by itself as well (index-auto-start.ts).
 */
export const KEEPER_HOST = Symbol.for('holon.keeper-host');

/** A question: per agent, the generation its snapshot was marked with, in the epoch they name. */
export interface KeeperQuestion {
  epoch: string;
  since: Record<string, number>;
  /** Asked by a keeper's own refresh of the answers (frontier-refresh.ts): not a use that keeps it from idling out. */
  refresh?: boolean;
}

/**
 * `local/index/refresh-failed`: the keeper's host marks it while a refresh of the frontier answers fails
 * (runtime/frontier-refresh.ts), and clears it once every agent's refresh works. While it is there, a
 * command stores what it computes (ops/frontier-patched.ts leftToKeeper), since no refresh would (an old
 * keeper whose holon was moved away, a broken home).
 */
export function markRefreshFailed(local: string, failing: boolean): void {
  const marker = keeperPaths(local).refreshFailed;
  try {
    if (failing) writeFileSync(marker, "a refresh of the frontier answers failed (see the keeper's log)\n");
    else rmSync(marker, { force: true });
  } catch {
    // A home that cannot be written: the commands' own writes fail there too.
  }
}

/** Whether the keeper's host marked its last refresh of the answers as failed (markRefreshFailed). */
export const refreshFailing = (local: string): boolean => existsSync(keeperPaths(local).refreshFailed);

/**
 * An answer. `gen` is the keeper's generation when it answered, after every file event queued before
 * the question arrived; `watched[agent]` is the generation since which the agent's work folder has been
 * watched without a break (a snapshot marked before it cannot be vouched for); `changed[agent]` names
 * every `.md` name with an event after `since[agent]` (null: the question's epoch is not this keeper's,
 * or too many changed: list the files instead).
 */
export interface KeeperAnswer {
  epoch: string;
  gen: number;
  watched: Record<string, number>;
  changed: Record<string, string[]> | null;
  /**
   * Of `changed`, the names a sweep found moved since an event had told the host of them, with no tell
   * and no event on them since (runtime/keeper-changes.ts): no refresh of the answers is known to follow
   * what they hold now.
   */
  untold?: Record<string, string[]>;
}

export interface KeeperInfo {
  pid: number;
  started_at: string;
  /** `dev:ino` of the req/ folder the keeper watches. */
  req?: string;
  /** It stops after this long without a question (`holon index --idle-exit`); null: when stopped. */
  idle_exit_ms?: number | null;
  /** When its process started (pid.ts processStart): a reused pid is not taken for it. */
  start?: string | null;
  /**
   * Where its process computes each agent's default answer again after a change (the folder its child
   * `holon frontier` runs in, runtime/frontier-refresh.ts); absent when it does not (HOLON_INDEX_REFRESH=0).
   */
  refresh_cwd?: string | null;
}

/** A folder's identity (`dev:ino`), as keeper.json records its question folder's; null if no folder is there. */
export function folderKey(dir: string): string | null {
  try {
    const s = statSync(dir);
    return s.isDirectory() ? `${s.dev}:${s.ino}` : null;
  } catch {
    return null;
  }
}

/**
 * The keeper that serves the home whose local/ is `local`, or why none does: no keeper.json, its pid
 * gone, or a keeper.json copied with a home (cp -a), which names the original's keeper and question
 * folder. Shared by the commands that ask (kept-listing.ts) and the hosts that would start one.
 */
export function liveKeeper(local: string): KeeperInfo | string {
  const paths = keeperPaths(local);
  let info: KeeperInfo;
  try {
    info = JSON.parse(readFileSync(paths.info, 'utf8')) as KeeperInfo;
  } catch {
    return 'no keeper runs';
  }
  if (!sameProcess(info.pid, info.start)) return `the keeper (pid ${info.pid}) is gone`;
  if (info.req !== folderKey(paths.req)) return 'keeper.json names another question folder (a copy of a home?)';
  return info;
}

/** The pid of the live process (not this one) that hosts this home's keeper, or null. */
export function liveHost(local: string): number | null {
  const paths = keeperPaths(local);
  try {
    const h = JSON.parse(readFileSync(paths.host, 'utf8')) as { pid: number; dir: string | null; start?: string | null };
    return h.pid !== process.pid && sameProcess(h.pid, h.start) && h.dir === folderKey(paths.dir) ? h.pid : null;
  } catch {
    return null;
  }
}
