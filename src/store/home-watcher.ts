import { join, sep } from 'node:path';
import type { Home } from './home.js';

const watchedLocal = (home: Home) => [join(home.local, 'agent-state.json'), join(home.local, 'cache'), join(home.local, 'cache', 'capabilities.json')];

/**
 * Paths the watcher ignores: machine-local state, lock folders, temp files, editor swap files, git.
 * `alsoLocal` names more of local/ to watch (the dashboard follows run records and the watcher's pid).
 */
export function ignoredPath(home: Home, path: string, alsoLocal: string[] = []): boolean {
  // local/ is machine state, except what decides whether an agent may run: `holon agent start` and
  // `holon capabilities --refresh` (an item that requires a capability is new work once it is verified).
  if (path.startsWith(home.local + sep)) {
    if (watchedLocal(home).includes(path)) return false;
    if (!alsoLocal.some((p) => path === p || path.startsWith(p + sep))) return true;
  }
  const base = path.slice(path.lastIndexOf(sep) + 1);
  return (
    path.includes(`${sep}.git${sep}`) ||
    base === '.git' ||
    base.endsWith('.lock') ||
    path.includes(`.lock${sep}`) ||
    base.endsWith('.tmp') ||
    base.endsWith('.swp') ||
    base.endsWith('~') ||
    base.startsWith('.#')
  );
}

export interface HomeWatcher {
  close(): Promise<void>;
}

/**
 * Calls `onChange` when anything in the home changes (a `holon notify`, a hand edit, a `git pull`),
 * through chokidar (inotify/FSEvents, no polling). chokidar is imported here only, by `holon watch` and `holon dash`.
 */
export async function watchHome(home: Home, onChange: (path: string) => void, onError: (err: Error) => void, opts: { alsoLocal?: string[] } = {}): Promise<HomeWatcher> {
  const { watch } = await import('chokidar');
  const w = watch(home.dir, {
    ignoreInitial: true,
    ignored: (p: string) => ignoredPath(home, p, opts.alsoLocal),
    persistent: true,
  });
  w.on('all', (_event, path) => onChange(path));
  // e.g. the inotify watch limit: the watcher still wakes for due times and ingress, so say it and go on.
  w.on('error', (err) => onError(err as Error));
  await new Promise<void>((resolve) => w.once('ready', () => resolve()));
  return { close: () => w.close() };
}
