import { existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HolonError } from '../core/errors.js';
import { FILES, planSetup, type FileChange, type Tool } from '../core/setup-plan.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { findHomeDir } from '../store/home.js';
import type { OpsCtx } from './context.js';

export interface SetupResult {
  tool: Tool;
  root: string;
  dry_run: boolean;
  remove: boolean;
  changed: boolean;
  files: Array<Omit<FileChange, 'before' | 'after'>>;
  notes: string[];
}

/** The project the agent CLI opens: the folder holding .holon when there is one, else the cwd. */
function projectRoot(ctx: OpsCtx): string {
  try {
    return dirname(findHomeDir({ home: ctx.globals.home, cwd: ctx.cwd, env: ctx.env }));
  } catch (err) {
    if (err instanceof HolonError && err.kind === 'notFound') return ctx.cwd;
    throw err;
  }
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : null);

/** Plans the change for one agent CLI, then applies it unless `dryRun`. Twice changes nothing. */
export function setup(ctx: OpsCtx, tool: Tool, opts: { dryRun?: boolean; remove?: boolean; bin?: string }): SetupResult {
  const root = projectRoot(ctx);
  const current: Record<string, string | null> = {};
  for (const f of Object.values(FILES[tool])) current[f] = read(join(root, f));
  const plan = planSetup(tool, current, { remove: Boolean(opts.remove), bin: opts.bin ?? 'holon', agent: ctx.globals.agent ?? null });
  if (!opts.dryRun) {
    for (const c of plan) {
      const path = join(root, c.file);
      if (c.action === 'delete') unlinkSync(path);
      else if (c.action !== 'unchanged' && c.after != null) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileAtomic(path, c.after, dirname(path));
      }
    }
  }
  const notes: string[] = [];
  if (!existsSync(join(root, '.holon', 'holon.yaml')) && !opts.remove) notes.push('no holon home here yet: run `holon init` so the hooks have work to show');
  if (tool === 'claude' && !opts.remove) {
    notes.push("Claude Code runs the project's hooks at once, but allows holon's MCP tools (permissions.allow in .claude/settings.json) only once you trust the workspace (its trust dialog); until then `claude -p` needs --allowedTools mcp__holon");
  }
  if (tool === 'codex' && !opts.remove) {
    notes.push('Codex reads .codex/config.toml and .codex/hooks.json of a project only once you trust the project, and asks you to review new hooks (/hooks) before they run');
  }
  return {
    tool, root, dry_run: Boolean(opts.dryRun), remove: Boolean(opts.remove),
    changed: plan.some((c) => c.action !== 'unchanged'),
    files: plan.map(({ before: _b, after: _a, ...rest }) => rest),
    notes,
  };
}
