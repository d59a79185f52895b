import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blocks, agentRepo } from './direct.js';
import { requestText } from './harness.js';

/**
 * A Claude Code session as a person runs it in a repository where `holon init` and `holon setup
 * claude` are all that was done (issue 9): the real `claude -p` against the loopback stand-in, with
 * the project's hooks (.claude/settings.json) and MCP server (.mcp.json) exactly as setup wrote them.
 */
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('claude with the hooks and MCP server of `holon setup claude`', () => {
  it('sees its focus at session start, is held back from ending in limbo, registers a wait through MCP, then may stop', async () => {
    const r = await agentRepo('claude');
    closers.push(r.close);
    await r.h(['setup', 'claude', '--bin', r.holonBin]);
    const id = (await r.h(['new', 'Fix the flaky login test', '--pick'])).trim();
    r.api.push(
      // The model tries to end its turn at once, with the focus open and nothing waited on.
      { text: 'All done.', usage: { input: 900, output: 10 } },
      // Held back, it takes an honest exit through the holon MCP server, not through Bash.
      { tool: { name: 'mcp__holon__wait', input: { id, for: 'external:ci:run/7', reason: 'CI on the fix' } }, usage: { input: 300, output: 20 } },
      { text: 'Waiting for CI.', usage: { input: 100, output: 5 } },
    );
    // No --allowedTools: setup allowed holon's MCP tools in the project's settings, which Claude Code
    // honours once the user accepted the workspace trust dialog (stood in for here).
    writeFileSync(join(r.env.HOME!, '.claude.json'), JSON.stringify({ projects: { [r.dir]: { hasTrustDialogAccepted: true } } }));
    const run = await r.cli(['-p', 'Work on your focus.', '--output-format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ is_error: false, subtype: 'success', num_turns: 3, result: 'Waiting for CI.', permission_denials: [] });
    const [first, second, third, ...more] = r.api.mainRequests;
    expect(more).toEqual([]);
    expect(r.api.remaining).toBe(0);

    // SessionStart ran `holon prime`: the first request already shows the agent and its focus.
    const start = requestText(first.body);
    expect(start).toContain('# holon: you are agent \\"dev\\"');
    expect(start).toContain(`## Focus: ${id} Fix the flaky login test`);
    expect(start).not.toContain('Stop hook');

    // The plain end_turn was blocked by `holon hook stop`: its reason, naming the item and the
    // honest exits, is in the next request.
    const held = blocks(second.body).map((b) => b.text ?? '').join('\n');
    expect(held).toMatch(/Stop hook blocking error from command: "[^"]*hook stop"/);
    expect(held).toContain(`your focus ${id} ("Fix the flaky login test") is open with no active wait, no blocker and no delivery`);
    expect(held).toContain(`holon wait ${id} --for external:RESOURCE`);
    expect(held).toContain(`holon block ${id} `);
    expect(held).toContain(`holon complete ${id} `);

    // The MCP tool call reached `holon mcp`, which registered the wait as agent dev.
    const result = blocks(third.body).find((b) => b.type === 'tool_result');
    expect(result, requestText(third.body)).toBeDefined();
    expect(result.is_error ?? false).toBe(false);
    const answer = JSON.parse(result.content.map((c: any) => c.text).join(''));
    expect(answer).toMatchObject({ registered: true, work_item: id, wait: { kind: 'external', resource: 'ci:run/7', status: 'active' } });
    const item = await r.json(['show', id]);
    expect(item.waits).toEqual([expect.objectContaining({ id: answer.wait.id, resource: 'ci:run/7', reason: 'CI on the fix', status: 'active' })]);
    expect(item.status).toBe('open');

    // Nothing went through Bash in any request.
    for (const q of r.api.requests) expect(blocks(q.body).filter((b) => b.type === 'tool_use' && b.name !== 'mcp__holon__wait')).toEqual([]);

    // A later turn of the same session: the focus now waits, so the Stop hook lets the very first
    // end_turn through (one request, no new block), and SessionStart primes it with the wait.
    r.api.push({ text: 'Still waiting for CI.' });
    const again = await r.cli(['-p', 'Anything new?', '--resume', out.session_id, '--output-format', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ is_error: false, num_turns: 1, result: 'Still waiting for CI.', session_id: out.session_id });
    expect(r.api.mainRequests).toHaveLength(4);
    const resumed = requestText(r.api.mainRequests[3].body);
    expect(resumed).toContain(`${answer.wait.id} external:ci:run/7 active: CI on the fix`);
    expect(resumed.split('Stop hook blocking error').length - 1).toBe(held.split('Stop hook blocking error').length - 1);
  });
});

describe('codex with the hooks and MCP server of `holon setup codex`', () => {
  it('sees its focus at session start, is held back from ending in limbo, and registers a wait through MCP', async () => {
    const r = await agentRepo('codex');
    closers.push(r.close);
    await r.h(['setup', 'codex', '--bin', r.holonBin]);
    const id = (await r.h(['new', 'Fix the flaky login test', '--pick'])).trim();
    // Codex loads a project's .codex/ only once the project is trusted, and runs a hook only once the
    // user trusted it in /hooks (by its hash); --dangerously-bypass-hook-trust stands in for that review.
    appendFileSync(join(r.env.CODEX_HOME!, 'config.toml'), `\n[projects."${r.dir}"]\ntrust_level = "trusted"\n`);
    r.api.push(
      { text: 'All done.' },
      { tool: { namespace: 'mcp__holon', name: 'wait', input: { id, for: 'external:ci:run/7', reason: 'CI on the fix' } } },
      { text: 'Waiting for CI.' },
    );
    const run = await r.cli(['exec', '--json', '--dangerously-bypass-hook-trust', '-s', 'workspace-write', 'Work on your focus.']);
    expect(run.code, run.stderr).toBe(0);
    const [first, second, third, ...more] = r.api.mainRequests;
    expect(more).toEqual([]);
    // SessionStart ran `holon prime --hook-json`: its context is in the first request, and the
    // holon MCP server's tools are offered.
    const start = requestText(first.body);
    expect(start).toContain('# holon: you are agent \\"dev\\"');
    expect(start).toContain(`## Focus: ${id} Fix the flaky login test`);
    expect(start).not.toContain('hook_prompt');
    const holonTools = first.body.tools.find((t: any) => t.name === 'mcp__holon');
    expect(holonTools?.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(['wait', 'block', 'complete', 'prime']));
    // The Stop hook held back the first end of the turn; its reason is the next prompt.
    const held = requestText(second.body);
    expect(held).toMatch(/<hook_prompt hook_run_id=\\"stop:[^"]*\.codex\/hooks\.json\\">holon: your focus/);
    expect(held).toContain(`your focus ${id} (\\"Fix the flaky login test\\") is open with no active wait`);
    expect(held).toContain(`holon wait ${id} --for external:RESOURCE`);
    // The MCP call went through (setup approved holon's tools) and registered the wait.
    const output = third.body.input.find((i: any) => i.type === 'function_call_output');
    const shown = (Array.isArray(output.output) ? output.output.map((o: any) => o.text) : [output.output]).join('\n');
    expect(shown).not.toContain('requires approval');
    const answer = JSON.parse(shown.slice(shown.indexOf('{')));
    expect(answer).toMatchObject({ registered: true, work_item: id, wait: { resource: 'ci:run/7', status: 'active' } });
    const item = await r.json(['show', id]);
    expect(item.waits).toEqual([expect.objectContaining({ id: answer.wait.id, resource: 'ci:run/7', reason: 'CI on the fix', status: 'active' })]);
    expect(run.stdout).toContain('"type":"mcp_tool_call","server":"holon","tool":"wait"');
    // No shell command anywhere.
    expect(run.stdout).not.toContain('"type":"command_execution"');
    expect(run.stdout).toContain('"text":"Waiting for CI."');
  });
});

describe('codex and a holon MCP server that starts slowly, or not at all', () => {
  /** A repo set up for codex whose `holon mcp` goes through `script` first (`$@` is holon's argv). */
  async function slowRepo(script: string) {
    const r = await agentRepo('codex');
    closers.push(r.close);
    const bin = join(r.dir, 'holon-wrapper');
    writeFileSync(bin, `#!/bin/sh\nif [ "$1" = mcp ]; then ${script}; fi\nexec ${r.holonBin} "$@"\n`, { mode: 0o755 });
    await r.h(['setup', 'codex', '--bin', bin]);
    await r.h(['new', 'Fix the flaky login test', '--pick']);
    appendFileSync(join(r.env.CODEX_HOME!, 'config.toml'), `\n[projects."${r.dir}"]\ntrust_level = "trusted"\n`);
    return r;
  }

  // Codex gives an optional MCP server 1 s to start before it leaves the server's tools out of the
  // session, silently (mcp_optional_startup_grace_ms); on a loaded machine `holon mcp` can take longer.
  // Setup marks holon's server required, so codex waits for it (up to startup_timeout_sec).
  it('still offers holon\'s tools when the server takes longer than the 1 s codex gives optional ones', async () => {
    const r = await slowRepo('sleep 2.5');
    r.api.push({ text: 'Nothing to do.' }, { text: 'Nothing to do.' }, { text: 'Nothing to do.' });
    const run = await r.cli(['exec', '--json', '--dangerously-bypass-hook-trust', '-s', 'workspace-write', 'Work on your focus.']);
    expect(run.code, run.stderr).toBe(0);
    const holonTools = r.api.mainRequests[0].body.tools.find((t: any) => t.name === 'mcp__holon');
    expect(holonTools?.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(['wait', 'block', 'complete', 'prime']));
  });

  it('does not start a session without holon when the server cannot start: the error names it', async () => {
    const r = await slowRepo('echo holon is broken >&2; exit 1');
    const run = await r.cli(['exec', '--json', '--dangerously-bypass-hook-trust', '-s', 'workspace-write', 'Work on your focus.']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('required MCP servers failed to initialize: holon');
    expect(r.api.mainRequests).toEqual([]);
  });
});
