import { invalid } from './errors.js';

/**
 * `holon setup claude|codex` as data: what each file holds now and what it should hold. Pure: the
 * ops layer reads the files, this plans, then the plan is applied or printed (--dry-run). Additions
 * merge into what is there; removal takes out exactly the entries holon adds, nothing else.
 */
export type Tool = 'claude' | 'codex';

export interface FileChange {
  /** Relative to the project root. */
  file: string;
  action: 'create' | 'update' | 'delete' | 'unchanged';
  /** What changes, one line each, for the person reading the plan. */
  changes: string[];
  before: string | null;
  after: string | null;
}

export interface SetupOptions {
  remove: boolean;
  /** The command that runs holon (default `holon`); split on spaces for the MCP server. */
  bin: string;
  /** When given, the hooks and the server act as this agent. */
  agent: string | null;
  /** Which CLI's hooks (default claude). */
  tool?: Tool;
  /** Claude Code only: approve holon's .mcp.json server in settings.json. */
  approveMcp?: boolean;
}

export const BEGIN = '<!-- holon:begin (managed by `holon setup`: edit outside this block; `holon setup --remove` takes it out) -->';
export const END = '<!-- holon:end -->';
export const TOML_BEGIN = '# holon:begin (managed by `holon setup codex`; `holon setup codex --remove` takes it out)';
export const TOML_END = '# holon:end';

/** What the managed section teaches: the loop, and the honest ways to end a turn. */
export function instructions(tool: Tool): string {
  return [
    BEGIN,
    '## Working with holon',
    '',
    "This project keeps agents' work in holon (`.holon/`): WorkItems say what to deliver, where it stands, what it waits for and where to resume. Work from those records, not from memory.",
    '',
    `- At session start \`holon prime\` shows your role and focus (a SessionStart hook runs it for ${tool === 'claude' ? 'Claude Code' : 'Codex'}; run it yourself after a long pause).`,
    '- Take work: `holon frontier`, then `holon pick` (the top runnable) or `holon pick ID`; new work: `holon new "objective" --pick`.',
    '- Record as you go: `holon progress ID "what you did"`, `holon evidence ID "what it proves" --commit SHA`, `holon on-return ID "where to pick up"`.',
    '- Never end a turn with the focus in limbo. Take one honest exit:',
    '  - wait for something: `holon wait ID --for external:RESOURCE --reason "why"` (or `--for timer --in 2h`, `--for operator`);',
    '  - block it with a recovery path: `holon block ID --reason "what stops it" --recovery "what would unblock it"`;',
    '  - complete it with evidence: `holon complete ID --result "..." --evidence "..." --no-followup "why"` (or `--successor ID`).',
    '- Write ids literally (`w-4f2a9c1k`), never as shell variables. The same operations are tools of the `holon` MCP server.',
    END,
  ].join('\n');
}

function commandsFor(o: SetupOptions): { prime: string; primeJson: string; stop: string; mcp: { command: string; args: string[] } } {
  const words = o.bin.trim().split(/\s+/).filter(Boolean);
  if (!words.length) throw invalid('--bin is empty', 'give the command that runs holon, e.g. --bin holon or --bin "npx holon"');
  const agentArgs = o.agent ? ['--agent', o.agent] : [];
  const line = (...a: string[]) => [...words, ...agentArgs, ...a].join(' ');
  return { prime: line('prime'), primeJson: line('prime', '--hook-json'), stop: line('hook', 'stop'), mcp: { command: words[0], args: [...words.slice(1), ...agentArgs, 'mcp'] } };
}

type Json = Record<string, any>;

function parseJson(text: string | null, file: string): Json {
  if (text == null || !text.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw invalid(`${file} is not valid JSON (${(err as Error).message}); holon will not overwrite it`, `fix the file by hand (or move it away), then run holon setup again`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalid(`${file} is not a JSON object; holon will not overwrite it`, 'fix the file by hand, then run holon setup again');
  return v as Json;
}

/**
 * The hooks each tool gets: session start (and, for Claude, compaction) primes the agent; Stop holds
 * back limbo. Codex 0.171 validates SessionStart output as JSON (so prime speaks its
 * hookSpecificOutput.additionalContext) and its PreCompact output has no field for context.
 */
function hookSpec(o: SetupOptions): Array<[string, string]> {
  const c = commandsFor(o);
  if (o.tool === 'codex') return [['SessionStart', c.primeJson], ['Stop', c.stop]];
  return [['SessionStart', c.prime], ['PreCompact', c.prime], ['Stop', c.stop]];
}

const hasCommand = (groups: unknown, command: string) =>
  Array.isArray(groups) && groups.some((g) => Array.isArray(g?.hooks) && g.hooks.some((h: any) => h?.command === command));

/** Merges holon's hooks into a Claude Code / Codex hooks object (settings.json or hooks.json). */
export function planHooks(file: string, text: string | null, o: SetupOptions): FileChange {
  const doc = parseJson(text, file);
  if (doc.hooks !== undefined && (typeof doc.hooks !== 'object' || Array.isArray(doc.hooks) || doc.hooks === null)) {
    throw invalid(`${file}: "hooks" is not an object; holon will not overwrite it`, 'fix the file by hand, then run holon setup again');
  }
  const hooks: Json = { ...(doc.hooks ?? {}) };
  const changes: string[] = [];
  for (const [event, command] of hookSpec(o)) {
    const groups = hooks[event];
    if (groups !== undefined && !Array.isArray(groups)) throw invalid(`${file}: hooks.${event} is not a list; holon will not overwrite it`, 'fix the file by hand, then run holon setup again');
    if (o.remove) {
      if (!hasCommand(groups, command)) continue;
      const kept = (groups as any[])
        .map((g) => (Array.isArray(g?.hooks) ? { ...g, hooks: g.hooks.filter((h: any) => h?.command !== command) } : g))
        .filter((g) => !(Array.isArray(g?.hooks) && g.hooks.length === 0));
      if (kept.length) hooks[event] = kept;
      else delete hooks[event];
      changes.push(`remove the ${event} hook \`${command}\``);
    } else if (!hasCommand(groups, command)) {
      hooks[event] = [...(groups ?? []), { hooks: [{ type: 'command', command }] }];
      changes.push(`add a ${event} hook: \`${command}\``);
    }
  }
  const next: Json = { ...doc, hooks };
  if (!Object.keys(hooks).length) delete next.hooks;
  if (o.approveMcp) approveServer(next, o.remove, changes);
  return jsonChange(file, text, next, changes);
}

/**
 * Claude Code asks before it starts a server from .mcp.json, and before each call of its tools (`claude
 * -p` denies the call); running setup is that consent, for holon's server only: it is approved in
 * `enabledMcpjsonServers` and its tools allowed in `permissions.allow` ("mcp__holon").
 */
function approveServer(doc: Json, remove: boolean, changes: string[]): void {
  const list = doc.enabledMcpjsonServers;
  if (list === undefined || Array.isArray(list)) {
    const has = Array.isArray(list) && list.includes('holon');
    if (remove && has) {
      const kept = list.filter((x: unknown) => x !== 'holon');
      if (kept.length) doc.enabledMcpjsonServers = kept;
      else delete doc.enabledMcpjsonServers;
      changes.push('remove "holon" from enabledMcpjsonServers');
    } else if (!remove && !has) {
      doc.enabledMcpjsonServers = [...(list ?? []), 'holon'];
      changes.push('approve the .mcp.json server "holon" (enabledMcpjsonServers)');
    }
  }
  const perms = doc.permissions;
  if (perms !== undefined && (typeof perms !== 'object' || perms === null || Array.isArray(perms))) return;
  const allow = perms?.allow;
  if (allow !== undefined && !Array.isArray(allow)) return;
  const allowed = Array.isArray(allow) && allow.includes(MCP_TOOLS);
  if (remove && allowed) {
    const kept = allow.filter((x: unknown) => x !== MCP_TOOLS);
    const next: Json = { ...perms };
    if (kept.length) next.allow = kept;
    else delete next.allow;
    if (Object.keys(next).length) doc.permissions = next;
    else delete doc.permissions;
    changes.push(`remove "${MCP_TOOLS}" from permissions.allow`);
  } else if (!remove && !allowed) {
    doc.permissions = { ...(perms ?? {}), allow: [...(allow ?? []), MCP_TOOLS] };
    changes.push(`allow the tools of the MCP server "holon" (permissions.allow: ${MCP_TOOLS})`);
  }
}

/** Claude Code's permission rule for every tool of the holon MCP server. */
const MCP_TOOLS = 'mcp__holon';

/** Registers (or removes) the holon MCP server in Claude Code's project `.mcp.json`. */
export function planMcpJson(file: string, text: string | null, o: SetupOptions): FileChange {
  const doc = parseJson(text, file);
  const servers: Json = { ...(doc.mcpServers ?? {}) };
  const want = { type: 'stdio', ...commandsFor(o).mcp };
  const changes: string[] = [];
  const same = JSON.stringify(servers.holon) === JSON.stringify(want);
  if (o.remove) {
    if (servers.holon && same) {
      delete servers.holon;
      changes.push('remove the MCP server "holon"');
    } else if (servers.holon) changes.push('keep the MCP server "holon": it was changed by hand (remove it yourself if you want it gone)');
  } else if (!same) {
    if (servers.holon) throw invalid(`${file} already has an MCP server "holon" that holon did not write`, `remove or rename it, or keep it and skip this step; holon wants: ${JSON.stringify(want)}`);
    servers.holon = want;
    changes.push(`add the MCP server "holon": ${[want.command, ...want.args].join(' ')}`);
  }
  const next: Json = { ...doc, mcpServers: servers };
  if (!Object.keys(servers).length) delete next.mcpServers;
  return jsonChange(file, text, next, changes.filter((c) => !c.startsWith('keep')), changes.filter((c) => c.startsWith('keep')));
}

function jsonChange(file: string, before: string | null, next: Json, changes: string[], notes: string[] = []): FileChange {
  if (!changes.length) return { file, action: 'unchanged', changes: notes, before, after: before };
  if (!Object.keys(next).length && before != null) return { file, action: 'delete', changes, before, after: null };
  const after = JSON.stringify(next, null, 2) + '\n';
  return { file, action: before == null ? 'create' : 'update', changes, before, after };
}

/** Replaces (or removes) the block between `begin` and `end`; text outside it is never touched. */
export function planBlock(file: string, text: string | null, block: string, begin: string, end: string, o: Pick<SetupOptions, 'remove'>, what: string): FileChange {
  const cur = text ?? '';
  const b = cur.indexOf(begin);
  const e = b >= 0 ? cur.indexOf(end, b) : -1;
  if (b >= 0 && e < 0) throw invalid(`${file} has the start of holon's managed section but not its end (${end})`, 'fix the file by hand: put the end marker back or delete the partial section');
  const present = b >= 0;
  let next: string;
  let change: string;
  if (o.remove) {
    if (!present) return { file, action: 'unchanged', changes: [], before: text, after: text };
    const head = cur.slice(0, b).replace(/\n+$/, '');
    const tail = cur.slice(e + end.length).replace(/^\n+/, '');
    next = head && tail ? `${head}\n\n${tail}` : head ? `${head}\n` : tail;
    change = `remove ${what}`;
    if (!next.trim()) return { file, action: 'delete', changes: [change], before: text, after: null };
  } else if (present) {
    if (cur.slice(b, e + end.length) === block) return { file, action: 'unchanged', changes: [], before: text, after: text };
    next = cur.slice(0, b) + block + cur.slice(e + end.length);
    change = `update ${what}`;
  } else {
    next = cur.trim() ? `${cur.replace(/\n*$/, '')}\n\n${block}\n` : `${block}\n`;
    change = `add ${what}`;
  }
  return { file, action: text == null ? 'create' : 'update', changes: [change], before: text, after: next };
}

/**
 * The holon server in Codex's config.toml, as a managed block (TOML tables are appended safely at the
 * end), its tools approved: codex asks before each call of an MCP tool by default, and `codex exec`
 * (approval never) refuses the call ("MCP tool call requires approval"). Running setup is the consent,
 * for holon's server only, as `enabledMcpjsonServers` is for Claude Code. `required`: codex leaves out
 * the tools of an optional server that took over 1 s to start, silently; a required one it waits for,
 * and a session it cannot start with holon's tools fails naming holon (docs/agents.md). A required
 * server that is slow past startup_timeout_sec (10 s by default) fails the session too: a busy machine
 * gets 30 s.
 */
export function codexTomlBlock(o: SetupOptions): string {
  const { command, args } = commandsFor(o).mcp;
  return [
    TOML_BEGIN, '[mcp_servers.holon]', `command = ${JSON.stringify(command)}`, `args = [${args.map((a) => JSON.stringify(a)).join(', ')}]`,
    'default_tools_approval_mode = "approve"',
    'required = true',
    'startup_timeout_sec = 30',
    TOML_END,
  ].join('\n');
}

export function planCodexToml(file: string, text: string | null, o: SetupOptions): FileChange {
  const outside = (text ?? '').replace(new RegExp(`${escape(TOML_BEGIN)}[\\s\\S]*?${escape(TOML_END)}`), '');
  if (!o.remove && /^\s*\[mcp_servers\.holon\]/m.test(outside)) {
    throw invalid(`${file} already has [mcp_servers.holon] that holon did not write`, 'remove it (holon setup codex adds its own), or keep it and skip this step');
  }
  return planBlock(file, text, codexTomlBlock(o), TOML_BEGIN, TOML_END, o, 'the MCP server "holon" ([mcp_servers.holon])');
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The files a tool's setup touches, relative to the project root. */
export const FILES: Record<Tool, Record<'hooks' | 'mcp' | 'instructions', string>> = {
  claude: { hooks: '.claude/settings.json', mcp: '.mcp.json', instructions: 'CLAUDE.md' },
  codex: { hooks: '.codex/hooks.json', mcp: '.codex/config.toml', instructions: 'AGENTS.md' },
};

/** The whole plan for one tool, from the files' current text (null when absent). */
export function planSetup(tool: Tool, current: Record<string, string | null>, o: SetupOptions): FileChange[] {
  const f = FILES[tool];
  return [
    planHooks(f.hooks, current[f.hooks] ?? null, { ...o, tool, approveMcp: tool === 'claude' }),
    tool === 'claude' ? planMcpJson(f.mcp, current[f.mcp] ?? null, o) : planCodexToml(f.mcp, current[f.mcp] ?? null, o),
    planBlock(f.instructions, current[f.instructions] ?? null, instructions(tool), BEGIN, END, o, "holon's managed section (the loop)"),
  ];
}
