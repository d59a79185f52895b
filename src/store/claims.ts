import { applyClaim, claimLive, normalizeHolder, sameHolder, type ClaimOutcome, type ClaimRequest } from '../core/claims.js';
import { exclusionOf, relatedItemsIn } from '../core/roles.js';
import type { WorkItem } from '../core/types.js';
import { conflict, invalid } from '../core/errors.js';
import { scopesOverlap } from '../core/write-scope.js';
import type { WorkDoc } from '../core/workitem.js';
import type { Home } from './home.js';
import { withLock } from './lock.js';
import { loadAllWork } from './work-index.js';
import { mutateWork, readWorkFile, type WorkRef } from './work-store.js';

/**
 * Claims an item atomically (lock + re-read + write via mutateWork). An item with a write_scope is
 * claimed under one more lock per repository, so two processes claiming overlapping scopes on
 * different items cannot both win; only then does the claim scan the other items.
 */
export async function claimWork(home: Home, ref: WorkRef, req: ClaimRequest): Promise<{ doc: WorkDoc; outcome: ClaimOutcome }> {
  const read = readWorkFile(ref.file, ref.id);
  // Held already, with nothing to change (a pick that resumes its own claim): nothing is written, so
  // no lock is taken either (records are replaced whole by rename: this read is one version of it).
  if (unchanged(home, read.item, req)) return { doc: read, outcome: 'unchanged' };
  const peek = read.item;
  const attempt = async () => {
    let outcome: ClaimOutcome = 'unchanged';
    const r = await mutateWork(home, ref, req.nowMs, (doc) => {
      const item = doc.item;
      if (item.status === 'done') throw invalid(`${item.id} is done; there is nothing to claim`, 'see `holon frontier` for what is runnable');
      const ex = exclusionInHome(home, item, req.holder);
      if (ex) throw invalid(`${normalizeHolder(req.holder)} is excluded from ${item.id} (${ex})`, 'another agent must take it');
      if (item.write_scope.length && !(claimLive(item.claim, req.nowMs) && sameHolder(item.claim!.holder, req.holder))) {
        assertScopeFree(home, item.id, item.repo ?? '', item.write_scope, req);
      }
      const next = applyClaim(item, req);
      outcome = next.outcome;
      return { ...doc, item: next.item };
    });
    return { doc: r.doc, outcome };
  };
  if (!peek.write_scope.length) return attempt();
  return withLock(home.local, `scope.${peek.repo ?? 'home'}`, attempt);
}

/** Whether claiming `item` as read would change nothing and refuse nothing: what the locked path decides then. */
function unchanged(home: Home, item: WorkItem, req: ClaimRequest): boolean {
  if (item.status === 'done' || !(claimLive(item.claim, req.nowMs) && sameHolder(item.claim!.holder, req.holder))) return false;
  try {
    return applyClaim(item, req).outcome === 'unchanged' && !exclusionInHome(home, item, req.holder);
  } catch {
    // A version mismatch: the locked path says so.
    return false;
  }
}

/**
 * Why `holder` may not hold `item` (a named agent, or `role:R` it served on the work the item follows),
 * or null. The home's items are read only when the item has a role rule.
 */
export function exclusionInHome(home: Home, item: WorkItem, holder: string): string | null {
  if (!item.exclude.length) return null;
  return exclusionOf(item, holder, () => relatedItemsIn(item, loadAllWork(home).items));
}

function assertScopeFree(home: Home, id: string, repo: string, scopes: string[], req: ClaimRequest): void {
  for (const other of loadAllWork(home).items) {
    if (other.id === id || (other.repo ?? '') !== repo || !other.write_scope.length || other.status === 'done') continue;
    if (!claimLive(other.claim, req.nowMs) || sameHolder(other.claim!.holder, req.holder)) continue;
    const hit = scopesOverlap(scopes, other.write_scope);
    if (hit) {
      throw conflict(`${id}: write scope ${hit[0]} overlaps ${hit[1]} of ${other.id}, claimed by ${other.claim!.holder}${other.claim!.expires_at ? ` until ${other.claim!.expires_at}` : ''}`, 'wait for that lease to end, or narrow write_scope (holon edit ID --remove-write-scope ... --add-write-scope ...)');
    }
  }
}
