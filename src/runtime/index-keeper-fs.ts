import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statNumbers } from '../store/fast-stat.js';

/** What the index keeper (index-keeper.ts) asks of the file system besides its watches. */

/** statfs magic numbers of local file systems, where every change is made by this kernel. */
export const LOCAL_FS = new Set([0xef53 /* ext2/3/4 */, 0x58465342 /* xfs */, 0x9123683e /* btrfs */, 0x01021994 /* tmpfs */, 0x794c7630 /* overlayfs */, 0xf2f52010 /* f2fs */, 0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */, 0x52654973 /* reiserfs */, 0x3153464a /* jfs */]);

/** Half the kernel's queue, or null when it cannot be read (then the keeper cannot count for overflows). */
export function overflowLimit(): number | null {
  try {
    const n = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isInteger(n) && n > 1 ? Math.floor(n / 2) : null;
  } catch {
    return null;
  }
}
/** A file's numbers as the keeper's sweep compares them; null when it is gone. */
export const keyOf = (dir: string, name: string): string | null => {
  try {
    const s = statNumbers(join(dir, name));
    return s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.nlink}` : null;
  } catch {
    return null;
  }
};

/** The `.md` names of a folder; null when it cannot be read. */
export const mdNames = (dir: string): string[] | null => {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.md'));
  } catch {
    return null;
  }
};

/** Every `.md` file's numbers in a folder. */
export function numbers(dir: string): Map<string, string> | null {
  const names = mdNames(dir);
  if (!names) return null;
  const out = new Map<string, string>();
  for (const n of names) {
    const k = keyOf(dir, n);
    if (k) out.set(n, k);
  }
  return out;
}

