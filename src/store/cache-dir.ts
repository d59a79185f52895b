import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The machine's cache folder, shared by every home and checkout on it (the content cache, the code
 * cache): `$HOLON_CACHE_DIR`, else `$XDG_CACHE_HOME/holon`, else `~/.cache/holon`; null for
 * `HOLON_CACHE_DIR=off` (or no home folder). Whatever is in it only saves work: removing it is safe.
 */
export function machineCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.HOLON_CACHE_DIR === 'off') return null;
  if (env.HOLON_CACHE_DIR) return env.HOLON_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'holon');
  try {
    // $HOME first, as homedir() itself does on POSIX: node:os is not loaded for it (boot.cjs, every
    // start). Not on Windows, where homedir() takes USERPROFILE (a HOME there is Git Bash's).
    const home = process.platform !== 'win32' && process.env.HOME;
    return join(home || homedir(), '.cache', 'holon');
  } catch {
    return null;
  }
}
