import { usage } from '../../core/errors.js';
import type { WorkDoc } from '../../core/workitem.js';
import { claim, release, renew, transfer } from '../../ops/claim.js';
import type { Ctx } from '../context.js';
import { out, printJson } from '../output.js';
import { claimChange } from '../shared-claims.js';
import { targetItem } from '../work-args.js';

function report(doc: WorkDoc, what: string, json?: boolean, extra: Record<string, unknown> = {}): void {
  const c = doc.item.claim;
  if (json) return printJson({ id: doc.item.id, ...extra, claim: c, revision: doc.item.revision });
  out(`${doc.item.id}  ${what}${c ? ` ${c.holder}${c.expires_at ? ` until ${c.expires_at}` : ''} (version ${c.version}, epoch ${c.epoch})` : ''}`);
}

export async function runClaim(ctx: Ctx, args: string[], opts: { ttl?: string; expectedVersion?: string; key?: string; sync?: boolean; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const { doc, outcome } = await claimChange(ctx, opts.sync, `claim ${ref.id}`, () => claim(ctx, ref, opts), () => [ref.file]);
  report(doc, outcome === 'unchanged' ? 'already claimed by' : outcome === 'extended' ? 'lease extended:' : 'claimed by', opts.json, { outcome });
}

export async function runRenew(ctx: Ctx, args: string[], opts: { ttl?: string; expectedVersion?: string; sync?: boolean; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const r = await claimChange(ctx, opts.sync, `renew ${ref.id}`, () => renew(ctx, ref, opts), () => [ref.file]);
  report(r.doc, 'renewed:', opts.json);
}

export async function runRelease(ctx: Ctx, args: string[], opts: { force?: boolean; expectedVersion?: string; sync?: boolean; json?: boolean }): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const r = await claimChange(ctx, opts.sync, `release ${ref.id}`, () => release(ctx, ref, opts), () => [ref.file]);
  if (opts.json) return printJson({ id: ref.id, claim: r.doc.item.claim, released: true, revision: r.doc.item.revision });
  out(`${ref.id}  released (was held by ${r.doc.item.claim?.holder})`);
}

export async function runTransfer(ctx: Ctx, args: string[], opts: { to?: string; force?: boolean; expectedVersion?: string; sync?: boolean; json?: boolean }): Promise<void> {
  if (!opts.to) throw usage('transfer to whom?', 'holon transfer ID --to AGENT');
  const ref = targetItem(ctx, args[0]);
  const r = await claimChange(ctx, opts.sync, `transfer ${ref.id}`, () => transfer(ctx, ref, { to: opts.to!, force: opts.force, expectedVersion: opts.expectedVersion }), () => [ref.file]);
  report(r.doc, 'transferred to', opts.json);
}
