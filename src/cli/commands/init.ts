import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { relPath } from '../render.js';
import { addAgent, initHome } from '../../store/init.js';
import { configureDriver } from '../../store/sync-setup.js';
import { homeDirFor, listAgents } from '../../store/home.js';
import { readFocus } from '../../store/focus.js';
import { loadAgentWork } from '../../store/work-index.js';
import type { Ctx } from '../context.js';
import { out, printJson, table } from '../output.js';

export function runInit(ctx: Ctx, _args: string[], opts: { json?: boolean }): void {
  const explicit = ctx.globals.home ?? ctx.env.HOLON_HOME;
  const dir = explicit ? homeDirFor(explicit, ctx.cwd) : join(ctx.cwd, '.holon');
  const existed = existsSync(join(dir, 'holon.yaml'));
  // Run again in a home, init adds an agent only when one is named: never a `main` nobody asked for.
  const agent = ctx.globals.agent ?? ctx.env.HOLON_AGENT ?? (existed ? null : 'main');
  const created = initHome(dir, agent);
  // In a git repository, this clone's git config learns the merge driver the .gitattributes names.
  configureDriver(dir);
  if (opts.json) return printJson({ home: dir, agent, created, existed });
  if (!created.length) return out(`holon home already set up at ${dir}; nothing changed`);
  out(`${existed ? 'updated' : 'created'} holon home at ${dir}`);
  for (const p of created) out(`  + ${relPath(ctx.cwd, p)}`);
  if (!existed) out(`next: holon new "what must be delivered"   (agent: ${agent})`);
}

export function runAgentAdd(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  const home = ctx.home();
  const created = addAgent(home.dir, args[0]);
  if (opts.json) return printJson({ agent: args[0], created });
  out(created.length ? `added agent ${args[0]} (${relPath(ctx.cwd, join(home.dir, 'agents', args[0], 'AGENTS.md'))})` : `agent ${args[0]} already exists; nothing changed`);
}

export function runAgentList(ctx: Ctx, _args: string[], opts: { json?: boolean }): void {
  const home = ctx.home();
  const agents = listAgents(home).map((name) => {
    const { items } = loadAgentWork(home, name);
    return { name, focus: readFocus(home, name).work_item, open: items.filter((i) => i.status === 'open').length, total: items.length };
  });
  if (opts.json) return printJson({ agents });
  if (!agents.length) return out('no agents; add one with `holon agent add NAME`');
  out(table([['AGENT', 'OPEN', 'TOTAL', 'FOCUS'], ...agents.map((a) => [a.name, String(a.open), String(a.total), a.focus ?? '-'])]));
}
