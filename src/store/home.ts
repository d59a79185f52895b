import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { yamlLib } from '../core/yaml-lib.js';
import { parseHolonYaml } from '../core/holon-yaml.js';
import { fileKey, writeCache } from './cache-file.js';
import { HolonError, invalid, notFound } from '../core/errors.js';
import { assertSafeId, closeMatches } from '../core/ids.js';
import { validMaxAge } from '../core/frontier-freshness.js';
import { DEFAULT_WATCH, watchConfig, type WatchConfig } from '../core/watch-settings.js';
import { checkTimeZone, parseBudget, parseWarnAt, type Budget } from '../core/budget.js';

/** Settings from holon.yaml, with defaults. */
export interface HomeConfig {
  default_agent: string | null;
  default_recheck: string;
  ingress: { listen: string };
  capabilities: Record<string, { probe?: string; description?: string } | null>;
  watch: WatchConfig;
  claims: 'local' | 'shared';
  /** The home's time zone (IANA name): where a daily budget's day starts. */
  timezone: string;
  /** holon.yaml `budget:` (docs/budgets.md): the default per item, per agent per day, the warning share. */
  budget: HomeBudgets;
  /** Issue 16: evidence older than max_age is stale (the frontier flags it); items may override it. */
  freshness?: { max_age?: string } | null;
  /** Issue 16: require_worktree refuses writes from the repository's main checkout (shared_checkout). */
  workspace?: { require_worktree?: boolean } | null;
}

export interface HomeBudgets {
  item: Budget | null;
  daily: Budget | null;
  warn: number;
}

export interface Home {
  /** The .holon folder. */
  dir: string;
  /** The folder that holds .holon (the project checkout, usually). */
  root: string;
  local: string;
  config: HomeConfig;
}

export const DEFAULT_CONFIG: HomeConfig = {
  default_agent: null,
  default_recheck: '24h',
  ingress: { listen: '127.0.0.1:7420' },
  capabilities: {},
  watch: DEFAULT_WATCH,
  claims: 'local',
  timezone: 'UTC',
  budget: { item: null, daily: null, warn: 0.8 },
};

function homeBudgets(raw: unknown, file: string): HomeBudgets {
  if (raw == null) return DEFAULT_CONFIG.budget;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(`${file}: budget must be a map`, 'budget: {item: "tokens=2M", daily: "cost=10usd", warn: "80%"}');
  const b = raw as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!['item', 'daily', 'warn'].includes(k)) throw invalid(`${file}: unknown key budget.${k}`, 'budget takes item (per item), daily (per agent per day) and warn (e.g. 80%)');
  return {
    item: b.item == null ? null : parseBudget(b.item, `${file} budget.item`),
    daily: b.daily == null ? null : parseBudget(b.daily, `${file} budget.daily`),
    warn: parseWarnAt(b.warn, `${file} budget`),
  };
}

/** The .holon folder a --home/HOLON_HOME value names: the folder itself, or one that contains .holon. */
export function homeDirFor(value: string, cwd: string): string {
  const dir = resolve(cwd, value);
  if (basename(dir) === '.holon' || existsSync(join(dir, 'holon.yaml'))) return dir;
  return join(dir, '.holon');
}

/** Finds the home: --home, then HOLON_HOME, then the nearest .holon walking up from cwd. */
export function findHomeDir(opts: { home?: string; cwd: string; env: NodeJS.ProcessEnv }): string {
  const explicit = opts.home ?? opts.env.HOLON_HOME;
  if (explicit) {
    const dir = homeDirFor(explicit, opts.cwd);
    if (!existsSync(join(dir, 'holon.yaml'))) {
      throw notFound(`no holon home at ${dir}`, `run \`holon init${opts.home ? ` --home ${opts.home}` : ''}\` to create one`);
    }
    return dir;
  }
  let dir = resolve(opts.cwd);
  for (;;) {
    if (existsSync(join(dir, '.holon', 'holon.yaml'))) return join(dir, '.holon');
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw notFound('no holon home here (no .holon/ in this folder or above)', 'run `holon init` in your project, or pass --home DIR / set HOLON_HOME');
}

/** holon.yaml as parsed, cached in local/cache/config.json by the file's inode/size/mtime/ctime. */
function readRawConfig(dir: string, file: string): unknown {
  const key = fileKey(file);
  const cache = join(dir, 'local', 'cache', 'config.json');
  try {
    const c = JSON.parse(readFileSync(cache, 'utf8')) as { key: string; raw: unknown };
    if (key && c.key === key) return c.raw;
  } catch {
    // No cache: parse.
  }
  // holon.yaml as `holon init` writes it is in holon's own subset: no yaml library to load on a fresh clone.
  const text = readFileSync(file, 'utf8');
  const raw = parseHolonYaml(text) ?? yamlLib().parse(text) ?? {};
  if (key) writeCache(cache, JSON.stringify({ key, raw }), join(dir, 'local', 'tmp'));
  return raw;
}

export function readConfig(dir: string): HomeConfig {
  const file = join(dir, 'holon.yaml');
  let raw: unknown;
  try {
    raw = readRawConfig(dir, file);
  } catch (err) {
    throw invalid(`${file}: bad YAML: ${(err as Error).message.split('\n')[0]}`, 'fix the file, or compare with `holon init --home /tmp/x` output');
  }
  const c = (raw ?? {}) as Partial<HomeConfig>;
  if (c.claims != null && c.claims !== 'local' && c.claims !== 'shared') throw invalid(`${file}: claims is "${String(c.claims)}"`, 'claims: shared (a claim counts once pushed) or claims: local (the default)');
  return {
    default_agent: c.default_agent ?? null,
    default_recheck: String(c.default_recheck ?? DEFAULT_CONFIG.default_recheck),
    ingress: { listen: String(c.ingress?.listen ?? DEFAULT_CONFIG.ingress.listen) },
    capabilities: (c.capabilities as HomeConfig['capabilities']) ?? {},
    watch: watchConfig(c.watch),
    claims: c.claims === 'shared' ? 'shared' : 'local',
    timezone: c.timezone == null ? 'UTC' : checkTimeZone(String(c.timezone), file),
    budget: homeBudgets(c.budget, file),
    ...frontierSettings(file, c),
  };
}

function frontierSettings(file: string, c: Partial<HomeConfig>): Pick<HomeConfig, 'freshness' | 'workspace'> {
  const out: Pick<HomeConfig, 'freshness' | 'workspace'> = {};
  const f = c.freshness as Record<string, unknown> | null | undefined;
  if (f != null) {
    if (typeof f !== 'object' || (f.max_age != null && !validMaxAge(String(f.max_age)))) throw invalid(`${file}: freshness.max_age must be a duration`, 'freshness: {max_age: 7d}');
    if (f.max_age != null) out.freshness = { max_age: String(f.max_age) };
  }
  const w = c.workspace as Record<string, unknown> | null | undefined;
  if (w != null) {
    if (typeof w !== 'object' || (w.require_worktree != null && typeof w.require_worktree !== 'boolean')) throw invalid(`${file}: workspace.require_worktree must be true or false`, 'workspace: {require_worktree: true}');
    if (w.require_worktree != null) out.workspace = { require_worktree: w.require_worktree as boolean };
  }
  return out;
}

export function openHome(opts: { home?: string; cwd: string; env: NodeJS.ProcessEnv }): Home {
  const dir = findHomeDir(opts);
  return { dir, root: dirname(dir), local: join(dir, 'local'), config: readConfig(dir) };
}

/** For `holon check`: the home even when holon.yaml is broken (check reports it with its file and line). */
export function openHomeLenient(opts: { home?: string; cwd: string; env: NodeJS.ProcessEnv }): Home {
  const dir = findHomeDir(opts);
  let config = DEFAULT_CONFIG;
  try {
    config = readConfig(dir);
  } catch (err) {
    if (!(err instanceof HolonError)) throw err;
  }
  return { dir, root: dirname(dir), local: join(dir, 'local'), config };
}

export const agentsDir = (home: Home) => join(home.dir, 'agents');
export const agentDir = (home: Home, agent: string) => join(home.dir, 'agents', assertSafeId(agent, 'agent name'));

export function listAgents(home: Home): string[] {
  try {
    return readdirSync(agentsDir(home), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(agentsDir(home), d.name, 'AGENTS.md')))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/** The acting agent: --agent, then HOLON_AGENT, then holon.yaml default_agent, then the only agent. */
export function resolveAgent(home: Home, explicit: string | undefined, env: NodeJS.ProcessEnv): string {
  const wanted = explicit ?? env.HOLON_AGENT ?? home.config.default_agent ?? undefined;
  const agents = listAgents(home);
  if (wanted) {
    assertSafeId(wanted, 'agent name');
    if (!agents.includes(wanted)) {
      const near = closeMatches(wanted, agents);
      throw notFound(
        `no agent "${wanted}" in ${home.dir}`,
        near.length ? `did you mean ${near.join(', ')}? (agents: ${agents.join(', ')})` : `add it with \`holon agent add ${wanted}\``,
      );
    }
    return wanted;
  }
  if (agents.length === 1) return agents[0];
  if (agents.length === 0) throw notFound('this home has no agents', 'add one with `holon agent add NAME`');
  throw new HolonError('usage', `several agents here (${agents.join(', ')}); say which one`, {
    hint: 'pass --agent NAME, set HOLON_AGENT, or set default_agent in holon.yaml',
  });
}

export function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
