import { describe, expect, it } from 'vitest';
import { BEGIN, END, planBlock, planCodexToml, planHooks, planMcpJson, planSetup, type SetupOptions } from '../../src/core/setup-plan.js';

const add: SetupOptions = { remove: false, bin: 'holon', agent: null };
const remove: SetupOptions = { ...add, remove: true };
const theirs = JSON.stringify({ model: 'opus', hooks: { Stop: [{ hooks: [{ type: 'command', command: './lint.sh' }] }], PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }] } });

/** Applies a plan's text to the next step, as a second run would read it. */
const after = (c: { after: string | null }) => c.after;

describe('setup planners', () => {
  const hookCases: Array<[string, string | null, SetupOptions, string, string[]]> = [
    ['fresh settings get three hooks', null, add, 'create', ['SessionStart', 'PreCompact', 'Stop']],
    ['existing hooks are kept beside ours', theirs, add, 'update', ['SessionStart', 'PreCompact', 'Stop']],
    ['removing from a file without ours changes nothing', theirs, remove, 'unchanged', []],
    ['an empty file counts as no settings', '', add, 'update', ['SessionStart', 'PreCompact', 'Stop']],
  ];
  for (const [name, text, o, action, events] of hookCases) {
    it(name, () => {
      const c = planHooks('.claude/settings.json', text, o);
      expect(c.action).toBe(action);
      expect(c.changes.filter((x) => x.includes('hook')).map((x) => x.split(' ')[2])).toEqual(events);
    });
  }

  it('adding twice changes nothing; remove takes out exactly what was added', () => {
    const once = planHooks('s', theirs, add);
    expect(planHooks('s', after(once), add).action).toBe('unchanged');
    const back = planHooks('s', after(once), remove);
    expect(JSON.parse(back.after!)).toEqual(JSON.parse(theirs));
    const fresh = planHooks('s', null, add);
    expect(planHooks('s', after(fresh), remove).action).toBe('delete');
  });

  it('the agent and the command that runs holon go into every hook and the server', () => {
    const o = { ...add, bin: 'npx holon', agent: 'reviewer' };
    expect(after(planHooks('s', null, o))).toContain('"npx holon --agent reviewer hook stop"');
    expect(JSON.parse(after(planMcpJson('.mcp.json', null, o))!).mcpServers.holon).toEqual({ type: 'stdio', command: 'npx', args: ['holon', '--agent', 'reviewer', 'mcp'] });
  });

  it('refuses what it cannot merge rather than clobbering it', () => {
    expect(() => planHooks('s', '{not json', add)).toThrow(/not valid JSON/);
    expect(() => planHooks('s', '{"hooks": []}', add)).toThrow(/not an object/);
    expect(() => planHooks('s', '{"hooks": {"Stop": {}}}', add)).toThrow(/not a list/);
    expect(() => planMcpJson('m', '{"mcpServers": {"holon": {"command": "other"}}}', add)).toThrow(/did not write/);
    expect(() => planCodexToml('c', '[mcp_servers.holon]\ncommand = "x"\n', add)).toThrow(/did not write/);
    expect(() => planBlock('f', `text\n${BEGIN}\nno end`, 'x', BEGIN, END, add, 'it')).toThrow(/not its end/);
  });

  it('the managed block: appended after the text, updated in place, removed leaving the rest as it was', () => {
    const mine = '# Project\n\nOur own rules.\n';
    const a = planBlock('CLAUDE.md', mine, `${BEGIN}\nv1\n${END}`, BEGIN, END, add, 'it');
    expect(a.after).toBe(`# Project\n\nOur own rules.\n\n${BEGIN}\nv1\n${END}\n`);
    const b = planBlock('CLAUDE.md', a.after, `${BEGIN}\nv2\n${END}`, BEGIN, END, add, 'it');
    expect(b.after).toBe(`# Project\n\nOur own rules.\n\n${BEGIN}\nv2\n${END}\n`);
    expect(planBlock('CLAUDE.md', b.after, `${BEGIN}\nv2\n${END}`, BEGIN, END, add, 'it').action).toBe('unchanged');
    expect(planBlock('CLAUDE.md', b.after, '', BEGIN, END, remove, 'it').after).toBe(mine);
  });

  it('codex: hooks.json, a TOML block for the server, AGENTS.md; a second run plans nothing', () => {
    const first = planSetup('codex', {}, add);
    expect(first.map((c) => [c.file, c.action])).toEqual([['.codex/hooks.json', 'create'], ['.codex/config.toml', 'create'], ['AGENTS.md', 'create']]);
    // Its tools approved: codex exec refuses an MCP call that needs approval.
    expect(first[1].after).toContain('[mcp_servers.holon]\ncommand = "holon"\nargs = ["mcp"]\ndefault_tools_approval_mode = "approve"\nrequired = true\nstartup_timeout_sec = 30\n');
    const state = Object.fromEntries(first.map((c) => [c.file, c.after]));
    expect(planSetup('codex', state, add).every((c) => c.action === 'unchanged')).toBe(true);
    expect(planSetup('codex', state, remove).every((c) => c.action === 'delete')).toBe(true);
    const withTheirs = planCodexToml('.codex/config.toml', 'model = "o3"\n', add);
    expect(planCodexToml('c', withTheirs.after, remove).after).toBe('model = "o3"\n');
  });
});
