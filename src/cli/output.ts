/** Output helpers: data to stdout, messages to stderr; color only on a TTY without NO_COLOR. */
import type { TextCopy } from '../store/answer-file.js';
import { stdoutIsTTY, writeErr, writeOut } from './stdout.js';

const useColor = () => !process.env.NO_COLOR && process.env.TERM !== 'dumb' && stdoutIsTTY();

const wrap = (code: string) => (s: string) => (useColor() ? `\x1b[${code}m${s}\x1b[0m` : s);
export const dim = wrap('2');
export const bold = wrap('1');
export const green = wrap('32');
export const yellow = wrap('33');
export const red = wrap('31');

/**
 * The version of every --json output's shape (schemas/*.json). It changes only when a key is removed or
 * changes meaning; new keys may appear without a change, so a reader ignores keys it does not know.
 */
export const SCHEMA_VERSION = 1;

/** Prints --json output: `schema_version` first, then the command's data. */
export function printJson(data: object): void {
  writeOut(JSON.stringify({ schema_version: SCHEMA_VERSION, ...data }, null, 2) + '\n');
}

/**
 * The same for an object already serialized (2-space indented, as printJson writes it), given in parts
 * (strings, or bytes of UTF-8 as read from a cache) and, after them, the bytes `tail` copies from a
 * stored answer: written piece by piece, never joined or decoded.
 */
export function printJsonParts(given: Array<string | Uint8Array>, tail: TextCopy | null = null): void {
  const parts = given.filter((p) => p.length > 0);
  if (!parts.length && !tail) return writeOut('\n');
  const code = (p: string | Uint8Array, i: number) => (typeof p === 'string' ? p.charCodeAt(i) : p[i]);
  // Trailing newlines trimmed as it goes: each piece's are held back until more text follows (a regex
  // /\n*$/ would try every position of a text of megabytes).
  let held = 0;
  let begun = false;
  const write = (p: string | Uint8Array) => {
    let from = 0;
    // The first byte of all: an object's `{` gets the schema version after it.
    if (!begun && p.length) {
      begun = true;
      if (code(p, 0) === 123 /* { */) {
        from = code(p, 1) === 10 ? 2 : 1;
        writeOut(`{\n  "schema_version": ${SCHEMA_VERSION},\n`);
      }
    }
    let end = p.length;
    while (end > from && code(p, end - 1) === 10) end--;
    if (end > from) {
      if (held) writeOut('\n'.repeat(held));
      writeOut(typeof p === 'string' ? p.slice(from, end) : p.subarray(from, end));
      held = 0;
    }
    held += p.length - end;
  };
  for (const p of parts) write(p);
  tail?.copy((chunk) => write(chunk));
  writeOut('\n');
}

export function out(text = ''): void {
  writeOut(text + '\n');
}

/** A message for the person (stderr), so stdout stays clean data. */
export function note(text: string): void {
  writeErr(text + '\n');
}

/** Left-aligned columns; the last column is not padded. */
export function table(rows: string[][]): string {
  if (!rows.length) return '';
  const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => strip(r[i] ?? '').length)));
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i] - strip(c).length))).join('  ').trimEnd())
    .join('\n');
}

export function truncate(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n - 1) + '…';
}
