import { invalid } from './errors.js';
import { claimLive, sameHolder } from './claims.js';
import type { Claim } from './types.js';

/**
 * Lifecycle authority (seed 002): who may change an item's lifecycle or record (complete, supersede,
 * defer, block, reopen, progress, evidence). A person (any actor that is not `agent:NAME`) may change
 * any item. An agent may change its own items, and those of the agents its AGENTS.md delegates
 * (`authority: {lifecycle: ["bob"]}`, or `["*"]` for every agent). While another holder has a live
 * claim on the item, an agent other than that holder may not write to it at all.
 */
export interface AuthorityCase {
  /** HOLON_ACTOR: `agent:NAME` for an agent run, anything else is a person. */
  actor: string;
  item: { id: string; agent: string; claim: Claim | null };
  /** The acting agent's AGENTS.md authority.lifecycle (agents whose items it may change). */
  delegated: string[];
  nowMs: number;
  /** What is attempted, for the message: "complete", "write progress to". */
  verb: string;
}

export type AuthorityVerdict = { allowed: true } | { allowed: false; reason: string; who: string[] };

export function lifecycleAuthority(c: AuthorityCase): AuthorityVerdict {
  if (!c.actor.startsWith('agent:')) return { allowed: true };
  const me = c.actor.slice('agent:'.length);
  const claim = c.item.claim;
  if (claim && claimLive(claim, c.nowMs) && !sameHolder(claim.holder, c.actor)) {
    return { allowed: false, reason: `${claim.holder} holds a live claim on it`, who: [claim.holder, 'a person (operator)'] };
  }
  const owner = c.item.agent;
  if (me === owner || c.delegated.includes(owner) || c.delegated.includes('*')) return { allowed: true };
  return { allowed: false, reason: `it is agent "${owner}"'s item and agents/${me}/AGENTS.md delegates no authority over "${owner}"`, who: [`agent:${owner}`, 'a person (operator)'] };
}

/** Throws the refusal (exit 3) naming who may do it. */
export function requireLifecycleAuthority(c: AuthorityCase): void {
  const v = lifecycleAuthority(c);
  if (v.allowed) return;
  throw invalid(
    `${c.actor} may not ${c.verb} ${c.item.id}: ${v.reason}`,
    `who may: ${v.who.join(' or ')}; or delegate it in agents/${c.actor.slice('agent:'.length)}/AGENTS.md (authority: {lifecycle: ["${c.item.agent}"]})`,
  );
}
