import { conflict, invalid } from './errors.js';
import { iso, parseDuration } from './time.js';
import type { Claim, WorkItem } from './types.js';

/**
 * Claims and leases as pure transitions on a WorkItem. A claim without `expires_at` holds until
 * released; one with it is a lease and stops holding at that instant. `version` counts every change
 * of the claim (the compare-and-swap value); `epoch` counts changes of hands (a fencing token).
 * Release ends the lease now and keeps the record of who held it, so both counters stay monotonic.
 */

/** Holders are written `agent:NAME`; a hand-written bare name means the same agent. */
export function normalizeHolder(h: string): string {
  const s = String(h ?? '').trim();
  return s.includes(':') ? s : `agent:${s}`;
}

export const sameHolder = (a: string, b: string) => normalizeHolder(a) === normalizeHolder(b);

export function claimLive(c: Claim | null | undefined, nowMs: number): boolean {
  if (!c || !c.holder) return false;
  if (c.expires_at == null) return true;
  const t = Date.parse(c.expires_at);
  return Number.isNaN(t) ? true : nowMs < t;
}

function describe(c: Claim): string {
  return `${c.holder}${c.expires_at ? ` (lease until ${c.expires_at})` : ' (no expiry)'}`;
}

export interface ClaimRequest {
  holder: string;
  nowMs: number;
  ttl?: string | null;
  ttlMs?: number | null;
  expectedVersion?: number | null;
  key?: string | null;
}

export type ClaimOutcome = 'claimed' | 'extended' | 'unchanged';

/** Claims `item` for `holder`; throws conflict (exit 5) naming the current holder when it is taken. */
export function applyClaim(item: WorkItem, req: ClaimRequest): { item: WorkItem; outcome: ClaimOutcome } {
  const cur = item.claim;
  const live = claimLive(cur, req.nowMs);
  const mine = live && sameHolder(cur!.holder, req.holder);
  if (mine && req.key && cur!.key === req.key) return { item, outcome: 'unchanged' };
  const version = cur?.version ?? 0;
  checkExpectedVersion(item, req.expectedVersion);
  if (live && !mine) {
    throw conflict(`${item.id} is claimed by ${describe(cur!)}`, cur!.expires_at ? 'wait for the lease to expire, or ask its holder to release or transfer it' : 'ask its holder to release or transfer it (`holon release ID`)');
  }
  const expires = req.ttlMs ? iso(req.nowMs + req.ttlMs) : null;
  if (mine) {
    if (!expires || expires === cur!.expires_at) return { item, outcome: 'unchanged' };
    const claim: Claim = { ...cur!, expires_at: expires, version: version + 1, ...(req.ttl ? { ttl: req.ttl } : {}), ...(req.key ? { key: req.key } : {}) };
    return { item: { ...item, claim }, outcome: 'extended' };
  }
  const claim: Claim = {
    holder: normalizeHolder(req.holder),
    claimed_at: iso(req.nowMs),
    expires_at: expires,
    version: version + 1,
    epoch: (cur?.epoch ?? 0) + 1,
    ...(req.ttl ? { ttl: req.ttl } : {}),
    key: req.key ?? null,
  };
  return { item: { ...item, claim }, outcome: 'claimed' };
}

/** Compare-and-swap on claim.version (0 when never claimed): conflict (exit 5) unless it is `expected`. */
export function checkExpectedVersion(item: WorkItem, expected: number | null | undefined): void {
  const version = item.claim?.version ?? 0;
  if (expected != null && expected !== version) {
    throw conflict(`${item.id}: claim version is ${version}, not the expected ${expected}`, 'read the item again (`holon show ID --json`, field claim.version) and retry with the current version');
  }
}

function requireOwn(item: WorkItem, holder: string, nowMs: number, force: boolean, verb: string): Claim {
  const cur = item.claim;
  if (!cur || !claimLive(cur, nowMs)) {
    // Release ends a claim by setting expires_at to now: "expired" would misreport a release.
    const why = cur?.expires_at ? `the claim by ${cur.holder} ended at ${cur.expires_at} (released or expired)` : 'it is not claimed';
    throw conflict(`cannot ${verb} ${item.id}: ${why}`, `claim it first: holon claim ${item.id}`);
  }
  if (!force && !sameHolder(cur.holder, holder)) {
    throw conflict(`cannot ${verb} ${item.id}: it is claimed by ${describe(cur)}, not by ${normalizeHolder(holder)}`, 'only the holder can do this (an operator may pass --force)');
  }
  return cur;
}

/** Extends the holder's live lease by `ttlMs` from now (default: the ttl it was granted with). */
export function applyRenew(item: WorkItem, holder: string, nowMs: number, ttl: string | null, ttlMs: number | null): WorkItem {
  const cur = requireOwn(item, holder, nowMs, false, 'renew');
  if (!ttlMs && cur.ttl) {
    ttl = cur.ttl;
    ttlMs = parseDuration(cur.ttl, 'claim.ttl');
  }
  if (!ttlMs) {
    throw invalid(`${item.id}: say how long to renew for`, `pass --ttl, e.g. holon renew ${item.id} --ttl 45m`);
  }
  return { ...item, claim: { ...cur, expires_at: iso(nowMs + ttlMs), version: cur.version + 1, ...(ttl ? { ttl } : {}) } };
}

/** Ends the claim now; the record keeps who held it. */
export function applyRelease(item: WorkItem, holder: string, nowMs: number, force: boolean): WorkItem {
  const cur = requireOwn(item, holder, nowMs, force, 'release');
  return { ...item, claim: { ...cur, expires_at: iso(nowMs), version: cur.version + 1 } };
}

/** Hands a live claim to another holder: a new epoch, the same expiry. */
export function applyTransfer(item: WorkItem, holder: string, to: string, nowMs: number, force: boolean): WorkItem {
  const cur = requireOwn(item, holder, nowMs, force, 'transfer');
  const next = normalizeHolder(to);
  if (next === normalizeHolder(cur.holder)) return item;
  // The same rule as a claim: a transfer must not hand the item to someone its exclude names.
  if (item.exclude.some((x) => sameHolder(x, next))) throw invalid(`${next} is excluded from ${item.id} (exclude: ${item.exclude.join(', ')}); it cannot hold it`, 'transfer it to another agent');
  return { ...item, claim: { ...cur, holder: next, claimed_at: iso(nowMs), version: cur.version + 1, epoch: cur.epoch + 1, key: null } };
}
