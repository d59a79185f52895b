import { createHash, hash as oneShotHash } from 'node:crypto';

const [MAJOR, MINOR] = process.versions.node.split('.').map(Number);
const ONE_SHOT = MAJOR > 20 || (MAJOR === 20 && MINOR >= 12);

/**
 * The SHA-1 of a text (as UTF-8), in hex. Native: a JS loop over every character cost a tenth of a
 * cold start. The one-shot crypto.hash (node 20.12+) costs a third of a Hash object per call; both give
 * the same digest. The bundle stands in for node:crypto with functions only (scripts/bundle.mjs),
 * hence the named imports.
 */
export const sha1Hex = (text: string): string => (ONE_SHOT ? oneShotHash('sha1', text, 'hex') : createHash('sha1').update(text).digest('hex'));
