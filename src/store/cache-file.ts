import { mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a cache file under local/: temp file + rename (readers never see a torn file) but no fsync,
 * since a cache lost in a crash is rebuilt from the records. Never throws: a read-only home just
 * computes every time.
 */
export function writeCache(path: string, text: string, tmpDir: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    mkdirSync(tmpDir, { recursive: true });
    const tmp = join(tmpDir, `${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    writeFileSync(tmp, text);
    try {
      renameSync(tmp, path);
    } catch (err) {
      try { unlinkSync(tmp); } catch { /* gone */ }
      throw err;
    }
  } catch {
    // Caches are optional.
  }
}
