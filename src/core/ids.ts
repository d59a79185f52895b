import { invalid } from './errors.js';

/** Lowercase Crockford base32: no i, l, o, u, so ids survive being read aloud or typed. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIX = { work: 'w', timer: 't', event: 'e', thread: 'th', command: 'c', task: 'k', wait: 'wt', run: 'r', gate: 'w' } as const;

/** Formats random bytes as a prefixed id: 8 chars = 40 bits, so two branches adding thousands never collide in practice. */
export function formatId(prefix: string, bytes: Uint8Array, length = 8): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i % bytes.length] & 31];
  return `${prefix}-${out}`;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Refuses ids that could escape the home folder or name something other than a record. */
export function assertSafeId(id: string, what = 'id'): string {
  if (typeof id !== 'string' || !SAFE_ID.test(id) || id.length > 100) {
    throw invalid(
      `${what} "${id}" is not a valid id`,
      'ids look like w-4f2a9c1k: letters, digits, "-" and "_" only, no "/" or ".."',
    );
  }
  return id;
}

/** Edit distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/** Up to `max` known ids close to `wanted`: shared prefix first, then small edit distance. */
export function closeMatches(wanted: string, known: Iterable<string>, max = 3): string[] {
  const scored: Array<[number, string]> = [];
  for (const id of known) {
    const d = id.startsWith(wanted) || wanted.startsWith(id) ? 0 : editDistance(wanted, id);
    if (d <= Math.max(2, Math.floor(wanted.length / 3))) scored.push([d, id]);
  }
  return scored.sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1])).slice(0, max).map((s) => s[1]);
}

/** "a user_gate", "an advancement_task": the article a word takes in a message (u as in "user" takes "a"). */
export function withArticle(word: string): string {
  return `${/^[aeio]/i.test(word) ? 'an' : 'a'} ${word}`;
}
