import { invalid } from './errors.js';

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * UTC ISO-8601 without milliseconds: 2026-11-30T05:00:00Z. Put together from the UTC fields: the
 * first toISOString of a process costs some 0.15 ms, and every write and frontier formats a time.
 * Years outside 0-9999 (and an invalid date, which throws) keep toISOString's own form.
 */
export function iso(ms: number): string {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  const y = d.getUTCFullYear();
  if (!(y >= 0 && y <= 9999)) return d.toISOString().replace('.000Z', 'Z');
  return `${String(y).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}Z`;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const MAX_DURATION_MS = 100 * 365 * UNITS.d;

/** "90s", "45m", "2h30m", "1d" in milliseconds; undefined when the text is not such a duration. */
export function durationMs(text: string): number | undefined {
  const s = String(text).trim();
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    total += Number(m[1]) * UNITS[m[2]];
    matched = re.lastIndex;
  }
  return s && matched === s.length && total > 0 ? total : undefined;
}

/** Parses "90s", "45m", "2h30m", "1d"; returns milliseconds. */
export function parseDuration(text: string, field = 'duration'): number {
  const total = durationMs(text);
  if (total === undefined) {
    throw invalid(`${field} "${text}" is not a duration`, 'use a number and a unit, e.g. 90s, 45m, 2h, 1d or 2h30m');
  }
  // Beyond this, now + duration is no longer a representable time (and no plan waits a century).
  if (!(total <= MAX_DURATION_MS)) throw invalid(`${field} "${text}" is too long (the limit is 100 years)`, 'use a shorter duration, or an ISO time');
  return total;
}

/** Parses an ISO-8601 time with a zone; returns epoch ms. */
export function parseIso(text: string, field = 'time'): number {
  const s = String(text).trim();
  const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(s) ? Date.parse(s) : NaN;
  if (Number.isNaN(ms)) {
    throw invalid(`${field} "${text}" is not an ISO-8601 time`, 'write it like 2026-11-30T17:00:00Z');
  }
  return ms;
}

/** A duration ("2h") from now, or an absolute ISO time. */
export function parseWhen(text: string, nowMs: number, field = 'time'): number {
  return /^\d{4}-/.test(String(text).trim()) ? parseIso(text, field) : nowMs + parseDuration(text, field);
}

/** Short human form of a duration, for messages: 1h 5m, 40s. */
export function humanDuration(ms: number): string {
  const neg = ms < 0;
  let s = Math.round(Math.abs(ms) / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (s >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
    if (parts.length === 2) break;
  }
  return (neg ? '-' : '') + parts.join(' ');
}
