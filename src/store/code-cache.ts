import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { codePath, codePathsTaken } from './code-paths.js';
import { machineCacheDir } from './cache-dir.js';
import { trace } from './trace.js';

/**
 * A light command's bundle (dist/bundle/cmd-*.cjs) loaded with V8's code cache: the compiled code of
 * the functions the last run used, kept in the machine's cache folder (`code/`), so a command does not
 * parse and compile ~200 KB of JavaScript on every start (some 10-15 ms of cpu, a tenth of a bare node
 * start). Node 22 does this itself (module.enableCompileCache); Node 20, holon's runtime, has only
 * vm.Script's cachedData, so the bundle is compiled here as require would compile it: the same wrapper,
 * its own module object and require.
 *
 * Why a cache cannot run other code than the bundle's: V8 refuses cached data made by another V8
 * version, other flags or for a source of another length; and a cache file names the bundle file it was made from by inode, size and
 * mtime, so a bundle rebuilt or replaced in place is compiled afresh. A bundle's name carries the hash
 * of its content, so a new build never meets an old build's cache. A refused, torn or unwritable cache
 * costs the compile it would have saved, nothing else.
 *
 * Written after a run that exited 0 found none (or had it refused): the data then covers the
 * functions a real command used (up to its long work, if any: see `early`). Its header names the paths
 * it covers (code-paths.ts: the command word and the branches that name themselves); a run
 * that took one it does not cover writes it again, made from the code this run has, the cache's and
 * its own, so it covers both. Writing one prunes the folder (see prune).
 */

export interface LoadedBundle {
  exports: unknown;
  /** After the command: writes the cache if this run exited 0 and had none to use, or one that lacks a path it took. */
  done(code: number): void;
}

/** Then the bundle's stamp and the paths covered, comma-separated: `holon-code-cache 2 INO:SIZE:MTIME cmd:pick,kept,verdicts`. */
const HEADER = 'holon-code-cache 2';
/** A longer first line is no header of ours. */
const HEADER_MAX = 4096;

/** Where runtime/compile-mode.ts finds what to call before it changes V8's flags (the bundles are separate module graphs). */
export const CAPTURE = Symbol.for('holon.code-cache-capture');
type Captures = { [CAPTURE]?: () => void };
const STALE_MS = 30 * 24 * 3600 * 1000;
const KEEP = 64;

/** Null when the bundle is to be required as usual (no cache folder, HOLON_DEBUG, Node's own cache, unreadable). */
export function loadBundle(file: string, word?: string, env: NodeJS.ProcessEnv = process.env): LoadedBundle | null {
  const root = machineCacheDir(env);
  if (!root || env.HOLON_DEBUG) return null;
  const dir = join(root, 'code');
  const builtin = (Module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (builtin) {
    // Node 22.1 and later: its own compile cache, for every module.
    builtin(dir);
    return null;
  }
  let source: string;
  let stamp: string;
  try {
    source = readFileSync(file, 'utf8');
    const st = statSync(file);
    stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
  const path = join(dir, `${basename(file)}.${process.version}-${process.arch}.v8`);
  const prefix = `${HEADER} ${stamp} `;
  let cachedData: Buffer | undefined;
  let listed: string[] = [];
  try {
    const buf = readFileSync(path);
    const nl = buf.subarray(0, HEADER_MAX).indexOf(10);
    const line = nl < 0 ? '' : buf.subarray(0, nl).toString('latin1');
    if (line.startsWith(prefix) && buf.length > nl + 1) {
      cachedData = buf.subarray(nl + 1);
      listed = line.slice(prefix.length).split(',').filter(Boolean);
    }
  } catch {
    // None yet.
  }
  let script: Script;
  try {
    script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`, { filename: file, cachedData });
  } catch {
    return null;
  }
  const fresh = !cachedData || script.cachedDataRejected === true;
  trace(`code cache: ${basename(file)} ${!cachedData ? 'missing' : fresh ? 'refused' : 'used'}`);
  const covered = fresh ? [] : listed;
  if (word) codePath(`cmd:${word}`);
  /** The data to write, made now, and the paths it covers; null when this run took no path the cache lacks. */
  const make = (): { data: Buffer; paths: string[] } | null => {
    const taken = codePathsTaken();
    if (!fresh && taken.every((t) => covered.includes(t))) return null;
    // The functions compiled in this process: the cache's and this run's. One the cache held and this
    // run never called may have lost its bytecode to a major GC (V8 ages it out): then that path
    // compiles its code on each run until the next build. Speed only.
    return { data: script.createCachedData(), paths: [...new Set([...covered, ...taken])] };
  };
  // The data carries V8's flags as they are when it is made, and a short command changes them before
  // long work (runtime/compile-mode.ts): made then, it has the flags the next start has; made after,
  // it would be refused. So a run that changed them writes what it made then, or nothing.
  let captured = false;
  let early: ReturnType<typeof make> = null;
  (globalThis as Captures)[CAPTURE] = () => {
    if (captured) return;
    captured = true;
    early = make();
  };
  const m = new Module(file);
  m.filename = file;
  // The bundle hands a command it does not hold to the whole CLI by import(), which a vm.Script on
  // Node 20 cannot make itself (scripts/bundle.mjs, __holonWholeCli): made here, relative to the bundle.
  (m as unknown as { holonImport: (spec: string) => Promise<unknown> }).holonImport = (spec) => import(pathToFileURL(resolve(dirname(file), spec)).href);
  (script.runInThisContext() as (...args: unknown[]) => void).call(m.exports, m.exports, Module.createRequire(file), m, file, dirname(file));
  m.loaded = true;
  return {
    exports: m.exports,
    done(code) {
      if (code !== 0) return;
      // Not cache-file.ts's writeCache: this runs in boot.cjs, where node:crypto (its temp names) would
      // load on every start; one writer per pid and bundle needs no random name.
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        const made = captured ? early : make();
        if (!made) return;
        mkdirSync(dir, { recursive: true });
        writeFileSync(tmp, Buffer.concat([Buffer.from(`${prefix}${made.paths.join(',')}\n`, 'latin1'), made.data]));
        renameSync(tmp, path);
        trace(`code cache: ${basename(file)} written (${made.paths.join(',')})`);
        prune(dir, path);
      } catch {
        // A read-only or full cache folder: the next run compiles again; no half-written temp file stays.
        try {
          unlinkSync(tmp);
        } catch {
          // None was made.
        }
      }
    },
  };
}

/**
 * Keeps the folder small: every build has new bundle names, so a developer's rebuilds would pile up
 * caches of bundles no longer there. Kept: the KEEP files written last (two builds of every bundle),
 * and none older than 30 days; temp files left by a killed writer go the same way.
 */
function prune(dir: string, keep: string): void {
  const before = Date.now() - STALE_MS;
  const files: Array<{ p: string; ms: number }> = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    try {
      if (p !== keep) files.push({ p, ms: statSync(p).mtimeMs });
    } catch {
      // Removed meanwhile.
    }
  }
  files.sort((x, y) => y.ms - x.ms);
  files.forEach(({ p, ms }, i) => {
    if (i < KEEP - 1 && ms >= before) return;
    try {
      unlinkSync(p);
    } catch {
      // Removed meanwhile.
    }
  });
}
