import { closeSync, openSync, readSync } from 'node:fs';
import { randomBytes as cryptoRandomBytes } from 'node:crypto';

/**
 * Random bytes for ids and temp names. Where the kernel offers /dev/urandom (Linux, macOS, the BSDs)
 * they are read from it with the fs module every command has loaded anyway: loading node:crypto for
 * eight bytes costs about a seventh of a bare node start, which `holon wait` or `holon new` would pay
 * on every call. It is the same source node:crypto draws from, so ids stay as unpredictable and as
 * unlikely to collide across machines. Elsewhere (Windows), or if the read fails, node:crypto.
 */
let fd: number | null | undefined;

export function randomBytes(n: number): Buffer {
  if (fd === undefined) {
    try {
      fd = openSync('/dev/urandom', 'r');
    } catch {
      fd = null;
    }
  }
  if (fd !== null) {
    const buf = Buffer.allocUnsafe(n);
    try {
      let got = 0;
      while (got < n) {
        const r = readSync(fd, buf, got, n - got, null);
        if (r <= 0) throw new Error('short read from /dev/urandom');
        got += r;
      }
      return buf;
    } catch {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      fd = null;
    }
  }
  return cryptoRandomBytes(n);
}
