import { createHash, hash as oneShotHash } from 'node:crypto';
import { sha1 } from '@noble/hashes/legacy';

const [MAJOR, MINOR] = process.versions.node.split('.').map(Number);
const ONE_SHOT = MAJOR > 20 || (MAJOR === 20 && MINOR >= 12);

/**
 * How many texts (each shorter than JS_MAX_LEN) a process hashes in JS before node:crypto: loading
 * node:crypto (it brings node's streams) costs a patched frontier some 5 ms, and the change of a few
 * files needs a few dozen hashes (content, title and priority of each file parsed: the changed ones,
 * the items they are read by), some 1 ms in JS. Past that, JS costs some 50 us a text unoptimized
 * against 3 us natively: a cold start (three texts per file) wants the native one. Both give the same
 * digest (SHA-1 of the UTF-8 bytes, a lone surrogate as U+FFFD either way: test/store/listing-digest.test.ts).
 */
const JS_CALLS = 24;
const JS_MAX_LEN = 4096;
let jsLeft = JS_CALLS;

/** The SHA-1 in JS, whatever the count (and for the test that both agree). */
export const sha1HexJs = (text: string): string => Buffer.from(sha1(Buffer.from(text, 'utf8'))).toString('hex');

export const sha1HexNative = (text: string): string => (ONE_SHOT ? oneShotHash('sha1', text, 'hex') : createHash('sha1').update(text).digest('hex'));

/**
 * The SHA-1 of a text (as UTF-8), in hex. Native past the first few: a JS loop over every character
 * cost a tenth of a cold start. The one-shot crypto.hash (node 20.12+) costs a third of a Hash object
 * per call. The bundle stands in for node:crypto with functions only (scripts/bundle.mjs), hence the
 * named imports.
 */
export function sha1Hex(text: string): string {
  if (jsLeft > 0 && text.length < JS_MAX_LEN) {
    jsLeft--;
    return sha1HexJs(text);
  }
  return sha1HexNative(text);
}
