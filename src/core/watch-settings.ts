import { invalid } from './errors.js';
import type { RetrySettings } from './run-retry.js';
import { parseDuration } from './time.js';

/** holon.yaml `watch:` as written (strings and numbers), with its defaults. */
export interface WatchConfig {
  no_progress_limit: number;
  run_timeout: string;
  retry_limit: number;
  retry_delay: string;
  retry_max_delay: string;
}

export const DEFAULT_WATCH: WatchConfig = { no_progress_limit: 3, run_timeout: '30m', retry_limit: 3, retry_delay: '30s', retry_max_delay: '30m' };

/** The `watch:` mapping of holon.yaml with defaults filled in; values are checked by watchSettings. */
export function watchConfig(raw: unknown): WatchConfig {
  const w = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const pick = <K extends keyof WatchConfig>(k: K): unknown => w[k] ?? DEFAULT_WATCH[k];
  return {
    no_progress_limit: pick('no_progress_limit') as number,
    run_timeout: String(pick('run_timeout')),
    retry_limit: pick('retry_limit') as number,
    retry_delay: String(pick('retry_delay')),
    retry_max_delay: String(pick('retry_max_delay')),
  };
}

export interface WatchSettings {
  noProgressLimit: number;
  runTimeoutMs: number;
  retry: RetrySettings;
}

function count(v: unknown, key: string, file: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw invalid(`${file}: watch.${key} must be a whole number of 0 or more (got ${JSON.stringify(v)})`, `write e.g. watch: {${key}: 3}`, file);
  return v;
}

function duration(v: string, key: string, file: string): number {
  try {
    return parseDuration(v, `watch.${key}`);
  } catch (err) {
    throw invalid(`${file}: ${(err as Error).message}`, `write e.g. watch: {${key}: 30s} (a number and a unit: ms, s, m, h, d)`, file);
  }
}

/** Checks the watch settings and parses them; a bad value is refused with the key and how to fix it. */
export function watchSettings(c: WatchConfig, file = 'holon.yaml'): WatchSettings {
  const delayMs = duration(c.retry_delay, 'retry_delay', file);
  const maxDelayMs = duration(c.retry_max_delay, 'retry_max_delay', file);
  if (maxDelayMs < delayMs) throw invalid(`${file}: watch.retry_max_delay (${c.retry_max_delay}) is shorter than watch.retry_delay (${c.retry_delay})`, 'make retry_max_delay at least retry_delay', file);
  return {
    noProgressLimit: count(c.no_progress_limit, 'no_progress_limit', file),
    runTimeoutMs: duration(c.run_timeout, 'run_timeout', file),
    retry: { limit: count(c.retry_limit, 'retry_limit', file), delayMs, maxDelayMs },
  };
}
