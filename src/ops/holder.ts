import { requireLifecycleAuthority } from '../core/lifecycle-authority.js';
import type { WorkItem } from '../core/types.js';
import { readAgent } from '../store/agents.js';
import type { OpsCtx } from './context.js';

/**
 * Who claims: HOLON_ACTOR when it names an agent (`agent:NAME`, as the watch runner sets it), else
 * `agent:` + the acting agent (--agent, HOLON_AGENT, default). A person running `holon claim` claims
 * for the agent they act as; claims are routing between agents, not personal locks.
 */
export function holderOf(ctx: OpsCtx, agent?: string): string {
  if (ctx.actor.startsWith('agent:')) return ctx.actor;
  return `agent:${agent ?? ctx.agent()}`;
}

/** The acting agent when one resolves, else `fallback` (e.g. the item's own agent). */
export function actingAgent(ctx: OpsCtx, fallback: string): string {
  try {
    return ctx.agent();
  } catch {
    return fallback;
  }
}

/**
 * The lifecycle authority check for writes by `ctx.actor`, run on the item as read under its lock.
 * A person passes at once; an agent's AGENTS.md delegations are read on first use only.
 */
export function authorityCheck(ctx: OpsCtx, verb: string): (item: WorkItem) => void {
  if (!ctx.actor.startsWith('agent:')) return () => undefined;
  let delegated: string[] | undefined;
  return (item) => {
    delegated ??= delegationsOf(ctx, ctx.actor.slice('agent:'.length));
    requireLifecycleAuthority({ actor: ctx.actor, item, delegated, nowMs: ctx.nowMs, verb });
  };
}

function delegationsOf(ctx: OpsCtx, agent: string): string[] {
  try {
    const auth = readAgent(ctx.home(), agent).config.authority as { lifecycle?: unknown } | undefined;
    return Array.isArray(auth?.lifecycle) ? auth.lifecycle.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
