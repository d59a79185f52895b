import { applyRelease, applyRenew, applyTransfer, checkExpectedVersion } from '../../core/claims.js';
import { invalid, usage } from '../../core/errors.js';
import { parseDuration } from '../../core/time.js';
import type { WorkDoc } from '../../core/workitem.js';
import { claimWork } from '../../store/claims.js';
import { listAgents } from '../../store/home.js';
import { mutateWork } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { actingAgent, holderOf } from '../holder.js';
import { out, printJson } from '../output.js';
import { targetItem } from '../work-args.js';

function ttlOf(ttl: string | undefined): { ttl: string | null; ttlMs: number | null } {
  return ttl ? { ttl, ttlMs: parseDuration(ttl, '--ttl') } : { ttl: null, ttlMs: null };
}

function report(doc: WorkDoc, what: string, json?: boolean, extra: Record<string, unknown> = {}): void {
  const c = doc.item.claim;
  if (json) return printJson({ id: doc.item.id, ...extra, claim: c, revision: doc.item.revision });
  out(`${doc.item.id}  ${what}${c ? ` ${c.holder}${c.expires_at ? ` until ${c.expires_at}` : ''} (version ${c.version}, epoch ${c.epoch})` : ''}`);
}

/** Only a person (not an agent run) may force a release or transfer of someone else's claim. */
function force(ctx: Ctx, wanted?: boolean): boolean {
  if (wanted && ctx.actor.startsWith('agent:')) throw invalid('--force needs operator authority; an agent run may not take another holder\'s claim', 'ask the holder, or a person, to release it');
  return Boolean(wanted);
}

function expectedVersionOf(given: string | undefined): number | null {
  if (given === undefined) return null;
  const v = Number(given);
  if (!Number.isInteger(v) || v < 0) throw invalid(`--expected-version "${given}" is not a whole number`, 'pass the claim.version you read, e.g. --expected-version 3 (0 when unclaimed)');
  return v;
}

export async function runClaim(ctx: Ctx, args: string[], opts: { ttl?: string; expectedVersion?: string; key?: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const expectedVersion = expectedVersionOf(opts.expectedVersion);
  const { doc, outcome } = await claimWork(ctx.home(), ref, { holder: holderOf(ctx, actingAgent(ctx, ref.agent)), nowMs: ctx.nowMs, ...ttlOf(opts.ttl), expectedVersion, key: opts.key ?? null });
  report(doc, outcome === 'unchanged' ? 'already claimed by' : outcome === 'extended' ? 'lease extended:' : 'claimed by', opts.json, { outcome });
}

export async function runRenew(ctx: Ctx, args: string[], opts: { ttl?: string; expectedVersion?: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const { ttl, ttlMs } = ttlOf(opts.ttl);
  const ev = expectedVersionOf(opts.expectedVersion);
  const r = await mutateWork(ctx.home(), ref, ctx.nowMs, (doc) => (checkExpectedVersion(doc.item, ev), { ...doc, item: applyRenew(doc.item, holderOf(ctx, actingAgent(ctx, ref.agent)), ctx.nowMs, ttl, ttlMs) }));
  report(r.doc, 'renewed:', opts.json);
}

export async function runRelease(ctx: Ctx, args: string[], opts: { force?: boolean; expectedVersion?: string; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const f = force(ctx, opts.force);
  const ev = expectedVersionOf(opts.expectedVersion);
  const r = await mutateWork(ctx.home(), ref, ctx.nowMs, (doc) => (checkExpectedVersion(doc.item, ev), { ...doc, item: applyRelease(doc.item, holderOf(ctx, actingAgent(ctx, ref.agent)), ctx.nowMs, f) }));
  if (opts.json) return printJson({ id: ref.id, claim: r.doc.item.claim, released: true, revision: r.doc.item.revision });
  out(`${ref.id}  released (was held by ${r.doc.item.claim?.holder})`);
}

export async function runTransfer(ctx: Ctx, args: string[], opts: { to?: string; force?: boolean; expectedVersion?: string; json?: boolean }): Promise<void> {
  if (!opts.to) throw usage('transfer to whom?', 'holon transfer ID --to AGENT');
  const to = opts.to.replace(/^agent:/, '');
  const ref = targetItem(ctx, args[0]);
  if (!listAgents(ctx.home()).includes(to)) throw invalid(`no agent "${to}" in this home`, `use one of: ${listAgents(ctx.home()).join(', ')}`);
  const f = force(ctx, opts.force);
  const ev = expectedVersionOf(opts.expectedVersion);
  const r = await mutateWork(ctx.home(), ref, ctx.nowMs, (doc) => (checkExpectedVersion(doc.item, ev), { ...doc, item: applyTransfer(doc.item, holderOf(ctx, actingAgent(ctx, ref.agent)), to, ctx.nowMs, f) }));
  report(r.doc, 'transferred to', opts.json);
}
