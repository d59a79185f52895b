import { invalid } from '../core/errors.js';

/** `--limit N`: a positive whole number, else exit 3 (never silently some other number). */
export function parseLimit(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw invalid(`--limit "${v}" is not a positive whole number`, 'e.g. --limit 20');
  return n;
}
