import { applyRelease, applyRenew, applyTransfer, checkExpectedVersion } from '../core/claims.js';
import { invalid } from '../core/errors.js';
import { parseDuration } from '../core/time.js';
import type { WorkDoc } from '../core/workitem.js';
import { claimWork, exclusionInHome } from '../store/claims.js';
import { listAgents } from '../store/home.js';
import { mutateWork, type WorkRef } from '../store/work-store.js';
import type { OpsCtx } from './context.js';
import { actingAgent, holderOf } from './holder.js';

function ttlOf(ttl: string | undefined): { ttl: string | null; ttlMs: number | null } {
  return ttl ? { ttl, ttlMs: parseDuration(ttl, '--ttl') } : { ttl: null, ttlMs: null };
}

/** Only a person (not an agent run) may force a release or transfer of someone else's claim. */
function force(ctx: OpsCtx, wanted?: boolean): boolean {
  if (wanted && ctx.actor.startsWith('agent:')) throw invalid('--force needs operator authority; an agent run may not take another holder\'s claim', 'ask the holder, or a person, to release it');
  return Boolean(wanted);
}

/** Claims atomically (a lease with a TTL); `expectedVersion` is a compare-and-swap, `key` makes a retry a no-op. */
function expectedVersionOf(given: string | number | undefined): number | null {
  if (given === undefined) return null;
  const v = Number(given);
  if (!Number.isInteger(v) || v < 0) throw invalid(`--expected-version "${given}" is not a whole number`, 'pass the claim.version you read, e.g. --expected-version 3 (0 when unclaimed)');
  return v;
}

export async function claim(ctx: OpsCtx, ref: WorkRef, opts: { ttl?: string; expectedVersion?: string | number; key?: string }): Promise<{ doc: WorkDoc; outcome: string }> {
  const expectedVersion = expectedVersionOf(opts.expectedVersion);
  return claimWork(ctx.home(), ref, { holder: holderOf(ctx, actingAgent(ctx, ref.agent)), nowMs: ctx.nowMs, ...ttlOf(opts.ttl), expectedVersion, key: opts.key ?? null });
}

export async function renew(ctx: OpsCtx, ref: WorkRef, opts: { ttl?: string; expectedVersion?: string | number }): Promise<{ doc: WorkDoc }> {
  const { ttl, ttlMs } = ttlOf(opts.ttl);
  const ev = expectedVersionOf(opts.expectedVersion);
  return mutateWork(ctx.home(), ref, ctx.nowMs, (doc) => (checkExpectedVersion(doc.item, ev), { ...doc, item: applyRenew(doc.item, holderOf(ctx, actingAgent(ctx, ref.agent)), ctx.nowMs, ttl, ttlMs) }));
}

export async function release(ctx: OpsCtx, ref: WorkRef, opts: { force?: boolean; expectedVersion?: string | number }): Promise<{ doc: WorkDoc }> {
  const f = force(ctx, opts.force);
  const ev = expectedVersionOf(opts.expectedVersion);
  return mutateWork(ctx.home(), ref, ctx.nowMs, (doc) => (checkExpectedVersion(doc.item, ev), { ...doc, item: applyRelease(doc.item, holderOf(ctx, actingAgent(ctx, ref.agent)), ctx.nowMs, f) }));
}

export async function transfer(ctx: OpsCtx, ref: WorkRef, opts: { to: string; force?: boolean; expectedVersion?: string | number }): Promise<{ doc: WorkDoc }> {
  const to = opts.to.replace(/^agent:/, '');
  if (!listAgents(ctx.home()).includes(to)) throw invalid(`no agent "${to}" in this home`, `use one of: ${listAgents(ctx.home()).join(', ')}`);
  const f = force(ctx, opts.force);
  const ev = expectedVersionOf(opts.expectedVersion);
  return mutateWork(ctx.home(), ref, ctx.nowMs, (doc) => {
    checkExpectedVersion(doc.item, ev);
    // The same rule as a claim, role rules included: never hand the item to someone excluded from it.
    const ex = exclusionInHome(ctx.home(), doc.item, `agent:${to}`);
    if (ex) throw invalid(`agent:${to} is excluded from ${doc.item.id} (${ex}); it cannot hold it`, 'transfer it to another agent');
    return { ...doc, item: applyTransfer(doc.item, holderOf(ctx, actingAgent(ctx, ref.agent)), to, ctx.nowMs, f) };
  });
}
