import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { rethrowFs } from './fs-errors.js';
import { pidAlive } from './pid.js';

/** Temp files are named `<file>.<pid>.<8 hex>.tmp`: the pid says whether their writer may still be at work. */
const TEMP = /\.(\d+)\.[0-9a-f]{8}\.tmp$/;
/** No writer keeps a temp file this long; an older one is a leftover even if its pid was reused. */
const TEMP_MAX_AGE_MS = 60 * 60 * 1000;
const swept = new Set<string>();

/**
 * Writes a file so that a crash at any moment leaves either the old or the new content:
 * temp file (in `tmpDir`, on the same file system) + fsync + rename + fsync of the folder.
 * A failed write leaves nothing behind; a file-system refusal (read-only, full, no permission)
 * becomes a clear HolonError naming `path` and the cause.
 */
export function writeFileAtomic(path: string, text: string, tmpDir: string): void {
  let tmp: string | null = null;
  try {
    mkdirSync(tmpDir, { recursive: true });
    sweepTempsOnce(tmpDir);
    // The pid tells writers apart and the write is synchronous, so Math.random suffices (crypto costs a
    // `holon progress` milliseconds to load).
    tmp = join(tmpDir, `${basename(path)}.${process.pid}.${Math.floor(Math.random() * 0x100000000).toString(16).padStart(8, '0')}.tmp`);
    const fd = openSync(tmp, 'w', 0o644);
    try {
      const buf = Buffer.from(text);
      for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    tmp = null;
  } catch (err) {
    if (tmp) {
      try { unlinkSync(tmp); } catch { /* never created, or already gone */ }
    }
    rethrowFs(err, path);
  }
  fsyncDir(dirname(path));
}

/**
 * Removes temp files left by killed writers (their pid is gone, or they are over an hour old), once per
 * folder and process: the first write of each command cleans up after the ones that died before it.
 */
export function sweepTempsOnce(tmpDir: string): void {
  if (swept.has(tmpDir)) return;
  swept.add(tmpDir);
  let names: string[];
  try {
    names = readdirSync(tmpDir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid) continue;
    const file = join(tmpDir, name);
    try {
      if (pidAlive(pid) && now - statSync(file).mtimeMs < TEMP_MAX_AGE_MS) continue;
      unlinkSync(file);
    } catch {
      // gone already, or not ours to remove
    }
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
