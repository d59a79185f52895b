import { watch as watchDir, type FSWatcher } from 'node:fs';
import { join, sep } from 'node:path';
import { agentsDir, listAgents, type Home } from './home.js';

const watchedLocal = (home: Home) => [join(home.local, 'agent-state.json'), join(home.local, 'cache'), join(home.local, 'cache', 'capabilities.json')];

/** The folders of queued and admitted events: one file per event, so they can hold a backlog of any size. */
const EVENT_FOLDERS = ['inbox', 'events'];

/** Whether `path` is an agent's inbox/ or events/ folder or inside one. */
export function inEventFolder(home: Home, path: string): boolean {
  const prefix = agentsDir(home) + sep;
  if (!path.startsWith(prefix)) return false;
  const parts = path.slice(prefix.length).split(sep);
  return parts.length >= 2 && EVENT_FOLDERS.includes(parts[1]);
}

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
 *
 * The event folders are left out of chokidar, which re-lists and stats a whole folder when it changes
 * (a backlog of n events would cost n^2 stats): each agent's folder, inbox/ and events/ get a plain
 * fs.watch instead, which reports a change without reading the folder.
 */
export async function watchHome(home: Home, onChange: (path: string) => void, onError: (err: Error) => void, opts: { alsoLocal?: string[] } = {}): Promise<HomeWatcher> {
  const { watch } = await import('chokidar');
  const raw = new Map<string, FSWatcher>();
  const rawWatch = (dir: string, onEvent: (name: string | null) => void) => {
    if (raw.has(dir)) return;
    try {
      const w = watchDir(dir, { persistent: true }, (_type, name) => onEvent(name ? String(name) : null));
      w.on('error', () => {
        // The folder was removed (a checkout): dropped here, watched again once it is back.
        w.close();
        raw.delete(dir);
      });
      raw.set(dir, w);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') onError(err as Error);
    }
  };
  const attach = () => {
    for (const agent of listAgents(home)) {
      const dir = join(agentsDir(home), agent);
      rawWatch(dir, (name) => {
        if (name && EVENT_FOLDERS.includes(name)) {
          // Created, or replaced by a checkout: watch the folder that is there now.
          raw.get(join(dir, name))?.close();
          raw.delete(join(dir, name));
          attach();
          onChange(join(dir, name));
        }
      });
      for (const f of EVENT_FOLDERS) rawWatch(join(dir, f), (name) => onChange(join(dir, f, name ?? '')));
    }
  };
  const w = watch(home.dir, {
    ignoreInitial: true,
    ignored: (p: string) => ignoredPath(home, p, opts.alsoLocal) || inEventFolder(home, p),
    persistent: true,
  });
  w.on('all', (_event, path) => {
    // A new agent (its AGENTS.md) gets its event folders watched too.
    if (path.endsWith(`${sep}AGENTS.md`)) attach();
    onChange(path);
  });
  // e.g. the inotify watch limit: the watcher still wakes for due times and ingress, so say it and go on.
  w.on('error', (err) => onError(err as Error));
  await new Promise<void>((resolve) => w.once('ready', () => resolve()));
  attach();
  return {
    close: async () => {
      for (const r of raw.values()) r.close();
      raw.clear();
      await w.close();
    },
  };
}
