import { createHash, hash as oneShotHash } from 'node:crypto';

const [MAJOR, MINOR] = process.versions.node.split('.').map(Number);
const ONE_SHOT = MAJOR > 20 || (MAJOR === 20 && MINOR >= 12);

/**
 * How much a process hashes in JS before node:crypto, in 64-byte blocks of texts shorter than
 * JS_MAX_LEN: loading node:crypto (it brings node's streams) and its first hash cost a command some
 * 2.7 ms, and JS costs some 11 us a block unoptimized (45 us for a file's content, 12 for its title or
 * priority) against 3 us a text natively. So JS up to about that cost: a file parsed again costs some 6
 * blocks (content, title, priority), and a call within 2 s of a change reads every file changed in
 * those 2 s again (they are racy: graph-index.ts quickDigest), a dozen after a busy minute; a cold start
 * (thousands of files) wants the native one. Until 2026-12-07 this was 24 texts (8 files), past which
 * such a call loaded node:crypto. Both give the same digest (SHA-1 of the UTF-8 bytes, a lone surrogate
 * as U+FFFD either way: test/store/listing-digest.test.ts).
 */
const JS_BLOCKS = 240;
const JS_MAX_LEN = 4096;
let jsBlocks = JS_BLOCKS;

/** The message schedule, reused: a text's SHA-1 allocates only its padded words. */
const W = new Int32Array(80);

/**
 * The SHA-1 in JS, whatever the count (and for the test that both agree): FIPS 180-4 over the
 * text's UTF-8 bytes (Buffer.from: a lone surrogate is U+FFFD, as natively). Written out rather than
 * taken from @noble/hashes, as holon did until 2026-12-07: its first call cost a command 0.5 ms, and a
 * few calls later V8's optimizer another 0.4-0.8 ms, where this costs 0.25 ms and then 35 us a text.
 * Texts here are short (under JS_MAX_LEN characters), so their bit length fits one 32-bit word.
 */
export const sha1HexJs = (text: string): string => sha1OfBytes(Buffer.from(text, 'utf8'));

/** SHA-1 of `bytes` (shorter than 512 MB: the bit length is one word), in hex. */
function sha1OfBytes(bytes: Uint8Array): string {
  const n = bytes.length;
  const words = new Int32Array((((n + 8) >> 6) + 1) * 16);
  for (let i = 0; i < n; i++) words[i >> 2] |= bytes[i] << (24 - ((i & 3) << 3));
  words[n >> 2] |= 0x80 << (24 - ((n & 3) << 3));
  words[words.length - 1] = n * 8;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let at = 0; at < words.length; at += 16) {
    for (let t = 0; t < 16; t++) W[t] = words[at + t];
    for (let t = 16; t < 80; t++) {
      const x = W[t - 3] ^ W[t - 8] ^ W[t - 14] ^ W[t - 16];
      W[t] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? ((b & c) | (~b & d)) + 0x5a827999 : t < 40 ? (b ^ c ^ d) + 0x6ed9eba1 : t < 60 ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc : (b ^ c ^ d) + 0xca62c1d6;
      const next = (((a << 5) | (a >>> 27)) + f + e + W[t]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return hex8(h0) + hex8(h1) + hex8(h2) + hex8(h3) + hex8(h4);
}

const hex8 = (h: number) => (h >>> 0).toString(16).padStart(8, '0');

export const sha1HexNative = (text: string): string => (ONE_SHOT ? oneShotHash('sha1', text, 'hex') : createHash('sha1').update(text).digest('hex'));

/**
 * The SHA-1 of a text (as UTF-8), in hex. Native past the first few: a JS loop over every character
 * cost a tenth of a cold start. The one-shot crypto.hash (node 20.12+) costs a third of a Hash object
 * per call. The bundle stands in for node:crypto with functions only (scripts/bundle.mjs), hence the
 * named imports.
 */
export function sha1Hex(text: string): string {
  if (jsBlocks > 0 && text.length < JS_MAX_LEN) {
    const bytes = Buffer.from(text, 'utf8');
    jsBlocks -= (bytes.length >> 6) + 1;
    return sha1OfBytes(bytes);
  }
  return sha1HexNative(text);
}
