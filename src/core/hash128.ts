/**
 * A 128-bit hash of a sequence of short strings (MurmurHash3's x86_128 block and finalizer, fed
 * 32-bit words), for cache fingerprints: which inputs an answer was made from. Not a
 * cryptographic hash, and not one of the files' bytes (git's blob ids are SHA-1 for that): two states
 * of a home collide by accident with odds of about 2^-128. Why not node:crypto's SHA-1, as before: loading
 * node:crypto (it brings node's streams) cost a reused frontier some 5 ms, a third of its own work.
 *
 * Each update is framed (its length mixed in after it), so ("ab", "c") and ("a", "bc") differ. Big
 * inputs (a listing's names and numbers) go to SHA-1 natively first (stat-index.ts listingDigest): a
 * JS loop over megabytes costs more than loading node:crypto, ten times more with V8's optimizer off.
 */
const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class Hash128 {
  private h1 = 0x9e3779b9;
  private h2 = 0x85ebca6b;
  private h3 = 0xc2b2ae35;
  private h4 = 0x27d4eb2f;
  /** Words waiting for a block of four. */
  private readonly w = new Uint32Array(4);
  private n = 0;
  /** Words taken so far. */
  private words = 0;

  private block(k1: number, k2: number, k3: number, k4: number): void {
    let { h1, h2, h3, h4 } = this;
    k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    this.h4 = h4;
  }

  private word(k: number): void {
    const w = this.w;
    w[this.n++] = k;
    this.words++;
    if (this.n === 4) {
      this.n = 0;
      this.block(w[0], w[1], w[2], w[3]);
    }
  }

  /** Mixes in a string (its UTF-16 code units, two per word), followed by its length. */
  update(x: string): this {
    const len = x.length;
    let i = 0;
    for (; i + 1 < len; i += 2) this.word(x.charCodeAt(i) | (x.charCodeAt(i + 1) << 16));
    if (i < len) this.word(x.charCodeAt(i));
    this.word(len);
    return this;
  }

  /** The hash as 32 hex digits (the hash can take no more updates after). */
  digest(): string {
    const count = this.words;
    while (this.n !== 0) this.word(0);
    let { h1, h2, h3, h4 } = this;
    h1 ^= count;
    h2 ^= count;
    h3 ^= count;
    h4 ^= count;
    h1 = (h1 + h2 + h3 + h4) | 0;
    h2 = (h2 + h1) | 0;
    h3 = (h3 + h1) | 0;
    h4 = (h4 + h1) | 0;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h3 = fmix(h3);
    h4 = fmix(h4);
    h1 = (h1 + h2 + h3 + h4) | 0;
    h2 = (h2 + h1) | 0;
    h3 = (h3 + h1) | 0;
    h4 = (h4 + h1) | 0;
    return [h1, h2, h3, h4].map((h) => (h >>> 0).toString(16).padStart(8, '0')).join('');
  }
}
