import type { Ctx } from '../context.js';

/** `holon mcp`: the MCP server over stdio. The SDK is loaded here only, so other commands never pay for it. */
export async function run(ctx: Ctx): Promise<void> {
  const { serveStdio } = await import('../../mcp/server.js');
  const agent = ctx.globals.agent ?? ctx.env.HOLON_AGENT;
  await serveStdio({ globals: { ...ctx.globals, agent: agent || undefined }, env: ctx.env, cwd: ctx.cwd });
}
