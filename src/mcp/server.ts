import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { HolonError } from '../core/errors.js';
import { makeOpsCtx, type OpsCtx } from '../ops/context.js';
import { VERSION } from '../version.js';
import { Rendered, TOOLS } from './tools.js';

type ToolResult = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };

/** A refusal as the agent reads it: the same message, exit code and fix as the CLI's. */
export function errorResult(err: unknown): ToolResult {
  if (err instanceof HolonError) {
    const body = { error: { kind: err.kind, exit_code: err.exitCode, message: err.message, fix: err.hint ?? null } };
    return { isError: true, content: [{ type: 'text', text: `holon: ${err.message}${err.hint ? `\nfix: ${err.hint}` : ''}\n${JSON.stringify(body)}` }] };
  }
  const message = (err as Error)?.message ?? String(err);
  return { isError: true, content: [{ type: 'text', text: `holon: unexpected error: ${message}\n${JSON.stringify({ error: { kind: 'unexpected', exit_code: 1, message, fix: null } })}` }] };
}

/**
 * The MCP server: the loop's operations as tools, acting as one agent with agent authority
 * (HOLON_ACTOR agent:NAME), never as the operator. A context per call, so each call has its own clock.
 */
export function buildServer(agent: { globals: { home?: string; agent?: string }; env: NodeJS.ProcessEnv; cwd: string }, inFlight = new Set<Promise<unknown>>()): McpServer {
  const server = new McpServer({ name: 'holon', version: VERSION }, { instructions: 'holon keeps your work alive across turns. Call prime first. Before ending a turn, settle your focus: wait, block (with a recovery path) or complete (with evidence).' });
  const ctxFor = (): OpsCtx => {
    const ctx = makeOpsCtx(agent.globals, agent.env, agent.cwd);
    const name = ctx.agent();
    return { ...ctx, actor: `agent:${name}`, agent: () => name };
  };
  for (const t of TOOLS) {
    const call = async (args: unknown): Promise<ToolResult> => {
      try {
        const out = await t.run(ctxFor(), args ?? {});
        return { content: [{ type: 'text', text: out instanceof Rendered ? out.text : JSON.stringify(out, null, 2) }] };
      } catch (err) {
        return errorResult(err);
      }
    };
    server.registerTool(t.name, { description: t.description, inputSchema: t.input, annotations: { readOnlyHint: Boolean(t.readOnly) } }, (args: unknown) => {
      const p = call(args);
      inFlight.add(p);
      return p.finally(() => inFlight.delete(p));
    });
  }
  return server;
}

/** Serves until the client closes stdin; calls already running finish and are answered first. */
export async function serveStdio(agent: Parameters<typeof buildServer>[0]): Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  const server = buildServer(agent, inFlight);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  while (inFlight.size) await Promise.allSettled([...inFlight]);
  // The answer is written once the call's promise settles: let that turn of the loop run.
  await new Promise((r) => setImmediate(r));
  await server.close().catch(() => undefined);
}
