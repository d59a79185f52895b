import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, project } from '../helpers/cli.js';

const NOW = '2026-11-30T06:00:00Z';

/** A client speaking MCP over stdio to a spawned `holon mcp`, as Claude Code or Codex would. */
async function connect(cwd: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd, env: { ...(cleanEnv() as Record<string, string>), HOLON_NOW: NOW, ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'holon-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

const text = (r: any): string => r.content.map((c: any) => c.text).join('\n');
const data = (r: any) => {
  if (r.isError) throw new Error(`tool error: ${text(r)}`);
  return JSON.parse(text(r));
};

describe('holon mcp', () => {
  it('initializes, lists typed tools, and runs the loop as the agent with agent authority', async () => {
    const p = await project();
    const client = await connect(p.dir);
    try {
      expect(client.getServerVersion()?.name).toBe('holon');
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const n of ['prime', 'frontier', 'pick', 'show', 'resume', 'new', 'progress', 'evidence', 'on_return', 'wait', 'settle_wait', 'complete', 'defer', 'block', 'claim', 'release']) expect(names).toContain(n);
      const waitTool = tools.find((t) => t.name === 'wait')!;
      expect(waitTool.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['for', 'reason']) });

      const created = data(await client.callTool({ name: 'new', arguments: { objective: 'Fix the flaky parser test', pick: true } }));
      const id = created.id as string;
      expect(created).toMatchObject({ agent: 'main', focus: true });
      expect(text(await client.callTool({ name: 'prime', arguments: {} }))).toContain(`## Focus: ${id}`);
      expect(data(await client.callTool({ name: 'frontier', arguments: {} })).runnable.map((e: any) => e.id)).toContain(id);
      const claimed = data(await client.callTool({ name: 'claim', arguments: { id, ttl: '45m' } }));
      expect(claimed.claim.holder).toBe('agent:main');
      data(await client.callTool({ name: 'progress', arguments: { text: 'found the race in the tokenizer' } }));
      data(await client.callTool({ name: 'evidence', arguments: { text: 'parser tests pass 200 times in a row', commit: 'abc1234' } }));
      const waited = data(await client.callTool({ name: 'wait', arguments: { for: 'external:ci:run/7731', reason: 'CI on the fix commit' } }));
      expect(waited).toMatchObject({ registered: true, work_item: id, wait: { kind: 'external', resource: 'ci:run/7731', status: 'active' } });
      expect(text(await client.callTool({ name: 'resume', arguments: { id } }))).toContain('found the race in the tokenizer');
      data(await client.callTool({ name: 'settle_wait', arguments: { wait_id: waited.wait.id, how: 'cancel' } }));
      const done = data(await client.callTool({ name: 'complete', arguments: { result: 'fixed the race', evidence: ['parser tests pass'], no_followup: 'nothing left' } }));
      expect(done).toMatchObject({ id, status: 'done' });

      // The same record the CLI reads: completed by the agent, not the operator.
      const shown = await p.json(['show', id]);
      expect(shown.delivery.completed_by).toBe('agent:main');
      expect(shown.evidence.map((e: any) => e.text)).toContain('parser tests pass 200 times in a row');
    } finally {
      await client.close();
    }
  });

  it('a refused call is a tool error with the message, exit code and fix; the server keeps serving', async () => {
    const p = await project();
    const id = await p.create('Review PR #101');
    const client = await connect(p.dir, { HOLON_ACTOR: 'operator' });
    try {
      const refused = await client.callTool({ name: 'complete', arguments: { id, result: 'looked at it', outstanding: ['answer the reviewer'] } });
      expect(refused.isError).toBe(true);
      const body = JSON.parse(text(refused).split('\n').pop()!);
      expect(body.error).toMatchObject({ kind: 'invalid', exit_code: 3 });
      expect(body.error.fix).toBeTruthy();
      const missing = await client.callTool({ name: 'show', arguments: { id: 'w-nosuch00' } });
      expect(missing.isError).toBe(true);
      expect(JSON.parse(text(missing).split('\n').pop()!).error.exit_code).toBe(4);
      // Bad input (no `for`) is refused by the schema as a tool error, not a crash.
      const bad = await client.callTool({ name: 'wait', arguments: { id, reason: 'x' } });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toMatch(/for/);
      // The server still serves, and acts with agent authority even when the environment says operator.
      const done = data(await client.callTool({ name: 'complete', arguments: { id, result: 'reviewed', evidence: ['comments posted'], no_followup: 'nothing left' } }));
      expect(done.status).toBe('done');
      expect((await p.json(['show', id])).delivery.completed_by).toBe('agent:main');
    } finally {
      await client.close();
    }
  });
});
