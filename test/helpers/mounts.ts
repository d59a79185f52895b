import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sh = (args: string[]) => spawnSync(args[0], args.slice(1), { encoding: 'utf8' });

/** Whether this process may mount (root, and a kernel that lets it): disk-fault tests need it. */
export const canMount: boolean = (() => {
  if (process.getuid?.() !== 0) return false;
  const d = mkdtempSync(join(tmpdir(), 'holon-mount-probe-'));
  try {
    if (sh(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', d]).status !== 0) return false;
    sh(['umount', d]);
    return true;
  } finally {
    rmdirSync(d);
  }
})();

export const mountSkipReason = 'disk-fault tests skipped: they mount a read-only bind mount and a small tmpfs, which needs root';

function run(args: string[]): void {
  const r = sh(args);
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
}

/** Makes `dir` read-only in place (a read-only bind mount over itself: root cannot write either). */
export function mountReadOnly(dir: string): () => void {
  run(['mount', '--bind', dir, dir]);
  run(['mount', '-o', 'remount,ro,bind', dir]);
  return () => run(['umount', dir]);
}

/** Mounts a tmpfs of `size` (e.g. "1m") on `dir`. */
export function mountTmpfs(dir: string, size: string): () => void {
  run(['mount', '-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  return () => run(['umount', dir]);
}
