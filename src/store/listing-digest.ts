import { createHash } from 'node:crypto';
import { Hash128 } from '../core/hash128.js';

// A listing's part of the frontier's fingerprint (work-listing.ts, Listing.part): hashed whole, or
// chained from the digest of the snapshot it was rebuilt from (stat-index.ts).

/**
 * A listing's part of the frontier's fingerprint: its names (one string) and its numbers as bytes,
 * hashed natively (SHA-1: at 50,000 files some 2 MB).
 */
export function listingDigest(names: string, stats: Float64Array): string {
  return createHash('sha1').update(names).update('\0').update(new Uint8Array(stats.buffer, stats.byteOffset, stats.byteLength)).digest('hex');
}

/** File i's four numbers (inode, size, mtime, ctime), as a view. */
export type Rows = (i: number) => Float64Array;

/** The rows of numbers laid out four per file. */
export const rowsOf = (stats: Float64Array): Rows => (i) => stats.subarray(4 * i, 4 * i + 4);

/**
 * The digest of a snapshot's names and numbers with the numbers at `looked` now those in `now` (the
 * stats of a listing rebuilt from it, kept-listing.ts): the snapshot's digest itself when none differs,
 * else a hash of it and of each position that differs with its new numbers, in position order. A
 * digest names one state of names and numbers (the snapshot's, by induction), and the differences
 * applied to it give one state: two states never share one. The same state reached another way may
 * get another digest: then an answer is not reused by its fingerprint, and the graph digest's path
 * (ops/frontier.ts) finds it. Costs the few files stat'ed again, not the 2 MB a SHA-1 of 50,000 files
 * reads, and needs no node:crypto.
 */
export function chainedDigest(digest: string, looked: readonly number[], old: Rows, now: Rows): string {
  // (`looked` holds each position once: the names a keeper reported, as a set, or movedRecords.)
  const differs: number[] = [];
  for (const i of looked) {
    const a = old(i);
    const b = now(i);
    if (a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2] || a[3] !== b[3]) differs.push(i);
  }
  if (!differs.length) return digest;
  // In position order: a keeper reports the files in the order their events came.
  differs.sort((a, b) => a - b);
  const h = new Hash128().update(digest);
  for (const i of differs) {
    const b = now(i);
    h.update(`${i}:${b[0]}:${b[1]}:${b[2]}:${b[3]}`);
  }
  // 'c' and 32 hex digits: never a SHA-1's 40.
  return `c${h.digest()}`;
}
