import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

const theirs = { model: 'opus', hooks: { Stop: [{ hooks: [{ type: 'command', command: './lint.sh' }] }] }, permissions: { allow: ['Bash(npm test)'] } };

describe('holon setup', () => {
  it('claude: fresh, twice, dry-run and remove', async () => {
    const p = await project();
    const dry = await p.h(['setup', 'claude', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would create .claude/settings.json');
    expect(existsSync(join(p.dir, '.claude'))).toBe(false);
    expect(existsSync(join(p.dir, '.mcp.json'))).toBe(false);

    const r = await p.json(['setup', 'claude']);
    expect(r.files.map((f: any) => [f.file, f.action])).toEqual([['.claude/settings.json', 'create'], ['.mcp.json', 'create'], ['CLAUDE.md', 'create']]);
    const settings = JSON.parse(readFileSync(join(p.dir, '.claude/settings.json'), 'utf8'));
    expect(settings.hooks.SessionStart[0].hooks[0]).toEqual({ type: 'command', command: 'holon prime' });
    expect(settings.hooks.PreCompact[0].hooks[0].command).toBe('holon prime');
    expect(settings.hooks.Stop[0].hooks[0].command).toBe('holon hook stop');
    expect(JSON.parse(readFileSync(join(p.dir, '.mcp.json'), 'utf8')).mcpServers.holon).toEqual({ type: 'stdio', command: 'holon', args: ['mcp'] });
    // The server approved and its tools allowed: claude -p denies an MCP tool that is not.
    expect(settings.enabledMcpjsonServers).toEqual(['holon']);
    expect(settings.permissions).toEqual({ allow: ['mcp__holon'] });
    expect(readFileSync(join(p.dir, 'CLAUDE.md'), 'utf8')).toContain('holon complete ID --result');

    const snapshot = ['.claude/settings.json', '.mcp.json', 'CLAUDE.md'].map((f) => readFileSync(join(p.dir, f), 'utf8'));
    const twice = await p.json(['setup', 'claude']);
    expect(twice.changed).toBe(false);
    expect(['.claude/settings.json', '.mcp.json', 'CLAUDE.md'].map((f) => readFileSync(join(p.dir, f), 'utf8'))).toEqual(snapshot);

    const gone = await p.h(['setup', 'claude', '--remove']);
    expect(gone.code).toBe(0);
    for (const f of ['.claude/settings.json', '.mcp.json', 'CLAUDE.md']) expect(existsSync(join(p.dir, f))).toBe(false);
  });

  it('claude: keeps other hooks, keys and text, and --remove restores them', async () => {
    const p = await project();
    mkdirSync(join(p.dir, '.claude'));
    writeFileSync(join(p.dir, '.claude/settings.json'), JSON.stringify(theirs));
    writeFileSync(join(p.dir, '.mcp.json'), JSON.stringify({ mcpServers: { db: { command: 'db-mcp' } } }));
    writeFileSync(join(p.dir, 'CLAUDE.md'), '# Our rules\n\nUse tabs.\n');
    expect((await p.h(['setup', 'claude'])).code).toBe(0);
    const s = JSON.parse(readFileSync(join(p.dir, '.claude/settings.json'), 'utf8'));
    expect(s.model).toBe('opus');
    // Their rules kept; holon's MCP tools allowed beside them.
    expect(s.permissions).toEqual({ allow: ['Bash(npm test)', 'mcp__holon'] });
    expect(s.hooks.Stop.map((g: any) => g.hooks[0].command)).toEqual(['./lint.sh', 'holon hook stop']);
    expect(JSON.parse(readFileSync(join(p.dir, '.mcp.json'), 'utf8')).mcpServers.db).toEqual({ command: 'db-mcp' });
    expect(readFileSync(join(p.dir, 'CLAUDE.md'), 'utf8')).toMatch(/^# Our rules\n\nUse tabs\.\n\n<!-- holon:begin/);

    expect((await p.h(['setup', 'claude', '--remove'])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(p.dir, '.claude/settings.json'), 'utf8'))).toEqual(theirs);
    expect(JSON.parse(readFileSync(join(p.dir, '.mcp.json'), 'utf8'))).toEqual({ mcpServers: { db: { command: 'db-mcp' } } });
    expect(readFileSync(join(p.dir, 'CLAUDE.md'), 'utf8')).toBe('# Our rules\n\nUse tabs.\n');
  });

  it('refuses a settings file it cannot parse (exit 3), writing nothing', async () => {
    const p = await project();
    mkdirSync(join(p.dir, '.claude'));
    writeFileSync(join(p.dir, '.claude/settings.json'), '{"hooks": ');
    const r = await p.h(['setup', 'claude']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('.claude/settings.json is not valid JSON');
    expect(readFileSync(join(p.dir, '.claude/settings.json'), 'utf8')).toBe('{"hooks": ');
    expect(existsSync(join(p.dir, '.mcp.json'))).toBe(false);
  });

  it('codex: hooks.json, config.toml and AGENTS.md, merged with what is there, twice and removed', async () => {
    const p = await project();
    mkdirSync(join(p.dir, '.codex'));
    writeFileSync(join(p.dir, '.codex/config.toml'), 'model = "o3"\n');
    const r = await p.h(['setup', 'codex']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('trust the project');
    expect(readFileSync(join(p.dir, '.codex/config.toml'), 'utf8')).toMatch(/^model = "o3"\n\n# holon:begin[^\n]*\n\[mcp_servers\.holon\]\ncommand = "holon"\nargs = \["mcp"\]\ndefault_tools_approval_mode = "approve"\nrequired = true\nstartup_timeout_sec = 30\n# holon:end\n$/);
    const codexHooks = JSON.parse(readFileSync(join(p.dir, '.codex/hooks.json'), 'utf8')).hooks;
    expect(codexHooks.Stop[0].hooks[0].command).toBe('holon hook stop');
    expect(codexHooks.SessionStart[0].hooks[0].command).toBe('holon prime --hook-json');
    // Codex's PreCompact output has no field for context: no prime there.
    expect(codexHooks.PreCompact).toBeUndefined();
    expect(readFileSync(join(p.dir, 'AGENTS.md'), 'utf8')).toContain('holon:begin');
    expect((await p.json(['setup', 'codex'])).changed).toBe(false);
    expect((await p.h(['setup', 'codex', '--remove'])).code).toBe(0);
    expect(readFileSync(join(p.dir, '.codex/config.toml'), 'utf8')).toBe('model = "o3"\n');
    expect(existsSync(join(p.dir, '.codex/hooks.json'))).toBe(false);
    expect(existsSync(join(p.dir, 'AGENTS.md'))).toBe(false);
  });
});
