/**
 * The holder record of a clone's sync lock (store/sync-lock.ts): who runs holon's git work in the
 * clone, and whether a waiting holon may take the lock over.
 */

export interface SyncHolder {
  pid: number;
  host: string;
  /** What holds it: 'holon sync', 'claim', 'watch lease', ... */
  what: string;
  /** Tells two acquisitions by one pid apart, so a release never removes a later holder's record. */
  token: string;
  since: string;
}

/** The record read from its file, or null when it is absent, torn or not a holder. */
export function parseHolder(text: string | null): SyncHolder | null {
  if (!text) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const h = v as Partial<SyncHolder>;
  if (!h || typeof h !== 'object' || !Number.isInteger(h.pid) || typeof h.host !== 'string' || typeof h.token !== 'string') return null;
  return { pid: h.pid!, host: h.host, what: typeof h.what === 'string' ? h.what : 'holon', token: h.token, since: typeof h.since === 'string' ? h.since : '' };
}

export type HolderVerdict = 'free' | 'held' | 'dead' | 'stale';

/**
 * May a waiter take the lock? `free`/`dead`/`stale`: yes; `held`: wait. A holder on this host is
 * judged by its pid (a killed `holon sync` frees the clone at once); one elsewhere (a clone on a shared
 * folder) or a pid reused by another process only by its heartbeat `beatMs` (the record's mtime) being
 * older than `staleMs`, which must outlast the longest single git call: the event loop, and so the
 * heartbeat, stops during each.
 */
export function holderVerdict(h: SyncHolder | null, beatMs: number, here: { host: string; nowMs: number; staleMs: number; alive: (pid: number) => boolean }): HolderVerdict {
  if (!h) return 'free';
  if (h.host === here.host && !here.alive(h.pid)) return 'dead';
  if (here.nowMs - beatMs > here.staleMs) return 'stale';
  return 'held';
}

/** "holon sync (pid 4242 on laptop, since 2026-...)" for messages. */
export function describeHolder(h: SyncHolder): string {
  return `${h.what} (pid ${h.pid} on ${h.host}${h.since ? `, since ${h.since}` : ''})`;
}
