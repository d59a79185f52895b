import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from './random.js';

/**
 * Writes a cache file under local/: temp file + rename (readers never see a torn file) but no fsync,
 * since a cache lost in a crash is rebuilt from the records. Never throws: a read-only home just
 * computes every time. Says whether the file was written. `durable`: its data is synced before the
 * rename, for a cache whose bytes no line of its own checks (content-answer.ts), where a crash could
 * otherwise leave a file of the right length with blocks never written.
 */
export function writeCache(path: string, text: string | Uint8Array | Iterable<string | Uint8Array>, tmpDir: string, durable = false): boolean {
  try {
    const tmp = join(tmpDir, `${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    let size = 0;
    // Parts written one by one (a generator makes each only when it is written): joining megabytes
    // of text first would copy it once more and hold it all at once.
    const fd = madeIfMissing(() => openSync(tmp, 'w'), tmpDir);
    try {
      for (const part of typeof text === 'string' || text instanceof Uint8Array ? [text] : text) {
        const buf = typeof part === 'string' ? Buffer.from(part) : part;
        for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off);
        size += buf.length;
      }
      if (durable) fsyncSync(fd);
    } catch (err) {
      // A full disk, or parts that could not be made (a generator reading another file): no temp file left behind.
      closeSync(fd);
      try { unlinkSync(tmp); } catch { /* gone */ }
      throw err;
    }
    closeSync(fd);
    // ext4 (auto_da_alloc) writes a file's data out before a rename that replaces another file: 10 to
    // 20 ms for a few MB, care a cache does not need (see above). A big one goes to a free name: the
    // old file is moved aside first (a reader in between finds none, and computes its answer itself).
    let aside = size >= BIG ? `${tmp}.old` : null;
    if (aside) {
      try {
        renameSync(path, aside);
      } catch {
        aside = null; // None yet.
      }
    }
    try {
      madeIfMissing(() => renameSync(tmp, path), dirname(path));
    } catch (err) {
      try { unlinkSync(tmp); } catch { /* gone */ }
      // The old file back where it was: a write that fails keeps what was there.
      if (aside) {
        try { renameSync(aside, path); } catch { /* gone meanwhile */ }
        aside = null;
      }
      throw err;
    }
    if (aside) {
      try { unlinkSync(aside); } catch { /* gone */ }
    }
    return true;
  } catch {
    // Caches are optional.
    return false;
  }
}

/**
 * `act` (which needs the folder `dir`), the folder made first only where it is missing: a cache write
 * is done by most commands, a few of them each, and a recursive mkdir of a folder that exists is two
 * system calls and some path work every time.
 */
function madeIfMissing<T>(act: () => T, dir: string): T {
  try {
    return act();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true });
    return act();
  }
}

/** From this size on, a cache file is not renamed over the old one (writeCache). */
const BIG = 64 * 1024;

/**
 * A file changed within this long before it was listed is "racy" (git's word): a second change in the
 * same timestamp tick (coarse kernel clocks, file systems with whole-second times) could leave size,
 * mtime and ctime as they were. Its entry is stored so that it never matches and the answer built on it
 * is not reused by file keys, so the next call reads it again; once the file is older, keys suffice.
 */
export const RACY_MS = 2000;

/**
 * A file's identity for caches: inode, size, mtime and ctime. holon writes by rename (new inode);
 * editors and `git checkout` change mtime/ctime; so any change gives a new key. Null when absent.
 */
export function fileKey(path: string): string | null {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : null;
}
