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
