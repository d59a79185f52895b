/**
 * strcmp's order of two names' UTF-8 bytes. JS compares UTF-16 code units, which is the same order
 * unless a surrogate meets a character from U+E000 up: only then are the bytes compared.
 */
export function byteOrder(a: string, b: string): number {
  if (HIGH.test(a) || HIGH.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : a > b ? 1 : 0;
}
const HIGH = /[\ud800-\uffff]/;
