import { readSync } from 'node:fs';

/** Reads `length` bytes at `position` of `fd` into `buf` at `offset`; false where the file ends first. */
export function readFully(fd: number, buf: Uint8Array, offset: number, length: number, position: number): boolean {
  while (length > 0) {
    const n = readSync(fd, buf, offset, length, position);
    if (n === 0) return false;
    offset += n;
    position += n;
    length -= n;
  }
  return true;
}
