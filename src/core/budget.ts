import { HolonError, invalid, usage } from './errors.js';
import type { TokenUse } from './runner-output.js';
import { durationMs, humanDuration, iso } from './time.js';

/**
 * Budgets (issue 17, docs/budgets.md): how much an item or an agent's day may spend, the spending
 * summed from run records (and thread commands), and the verdict the watcher, `show`, `runs` and the
 * frontier act on. Pure: the store reads the records, this only adds and compares.
 */

export const FIGURES = ['tokens', 'cost', 'runs', 'time'] as const;
export type Figure = (typeof FIGURES)[number];

/**
 * A budget: a limit per figure. A missing figure is not set here (a lower layer may set it);
 * `null` is "unlimited", set on purpose (it hides a default). tokens = input + cache writes + output;
 * cost in USD; runs a count; time the wall time of runs in ms.
 */
export type Budget = Partial<Record<Figure, number | null>>;

const SUFFIX: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9 };
const UNLIMITED = new Set(['none', 'unlimited', 'off']);

const EXAMPLE = 'e.g. tokens=2M,cost=5usd,runs=20,time=2h (a figure =none lifts a default)';

function parseFigure(fig: Figure, raw: string): number | undefined {
  const v = raw.trim().toLowerCase();
  if (fig === 'tokens') {
    const m = /^(\d+(?:\.\d+)?)([kmg]?)$/.exec(v.replace(/_/g, ''));
    return m ? Math.round(Number(m[1]) * SUFFIX[m[2]]) : undefined;
  }
  if (fig === 'cost') {
    const m = /^\$?(\d+(?:\.\d+)?)(?:\s*usd)?$/.exec(v);
    return m ? Number(m[1]) : undefined;
  }
  if (fig === 'runs') return /^\d+$/.test(v) ? Number(v) : undefined;
  return durationMs(v);
}

const HOW: Record<Figure, string> = {
  tokens: 'a count with an optional k, M or G: tokens=2M',
  cost: 'US dollars: cost=5usd (or cost=$5, cost=5)',
  runs: 'a whole number: runs=20',
  time: 'a duration: time=2h, time=90m, time=1h30m',
};

/**
 * Parses `tokens=2M,cost=5usd,runs=20,time=2h`, or a map of the same figures (front matter, YAML).
 * `usageError` (CLI flags) gives exit 2; a record or config file gives exit 3 naming `where`.
 */
export function parseBudget(value: unknown, where: string, usageError = false): Budget {
  const fail = (msg: string, hint: string): HolonError => (usageError ? usage(`${where}: ${msg}`, hint) : invalid(`${where}: ${msg}`, hint));
  const pairs: Array<[string, string]> = [];
  if (typeof value === 'string') {
    if (!value.trim()) throw fail('the budget is empty', EXAMPLE);
    for (const part of value.split(',')) {
      const p = part.trim();
      const eq = p.indexOf('=');
      if (eq < 1) throw fail(`"${p}" is not FIGURE=LIMIT`, EXAMPLE);
      pairs.push([p.slice(0, eq).trim(), p.slice(eq + 1).trim()]);
    }
  } else if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) pairs.push([k, v === null ? 'none' : String(v)]);
  } else throw fail(`the budget ${JSON.stringify(value)} is neither "FIGURE=LIMIT,..." nor a map`, EXAMPLE);
  const out: Budget = {};
  for (const [k, v] of pairs) {
    const fig = (k.toLowerCase() === 'cost_usd' ? 'cost' : k.toLowerCase()) as Figure;
    if (!FIGURES.includes(fig)) throw fail(`unknown budget figure "${k}"`, `use ${FIGURES.join(', ')}; ${EXAMPLE}`);
    if (fig in out) throw fail(`"${fig}" is given twice`, 'give each figure once');
    if (UNLIMITED.has(v.toLowerCase())) {
      out[fig] = null;
      continue;
    }
    const n = parseFigure(fig, v);
    if (n === undefined || !Number.isFinite(n)) throw fail(`${fig}=${v} is not a limit`, `${fig} is ${HOW[fig]}`);
    out[fig] = n;
  }
  return out;
}

/** The short form a budget is written as (front matter, messages): tokens=2M,cost=5usd,... */
export function formatBudget(b: Budget): string {
  return FIGURES.filter((f) => f in b).map((f) => `${f}=${b[f] === null ? 'none' : fmtFigure(f, b[f] as number, true)}`).join(',');
}

function compact(n: number): string {
  for (const [s, m] of [['G', 1e9], ['M', 1e6], ['k', 1e3]] as const) if (n >= m && n % (m / 10) === 0) return `${n / m}${s}`;
  return String(n);
}

/** One figure for people: 2.1M tokens, $4.2000, 3 runs, 1h 20m. `bare` gives the parseable form. */
export function fmtFigure(f: Figure, n: number, bare = false): string {
  if (f === 'tokens') return bare ? compact(n) : `${compact(n)} tokens`;
  if (f === 'cost') return bare ? `${n}usd` : `$${n.toFixed(4)}`;
  if (f === 'runs') return bare ? String(n) : `${n} run${n === 1 ? '' : 's'}`;
  if (bare) return n % 3_600_000 === 0 && n ? `${n / 3_600_000}h` : n % 60_000 === 0 && n ? `${n / 60_000}m` : n % 1000 === 0 ? `${n / 1000}s` : `${n}ms`;
  return humanDuration(n);
}

/** Layers from the most specific (the item's own) to the most general (holon.yaml): per figure, the first that sets it wins. */
export function layerBudgets(layers: Array<{ source: string; budget: Budget | null }>): { budget: Budget; source: Partial<Record<Figure, string>> } {
  const budget: Budget = {};
  const source: Partial<Record<Figure, string>> = {};
  for (const l of layers) {
    if (!l.budget) continue;
    for (const f of FIGURES) {
      if (f in budget || !(f in l.budget)) continue;
      budget[f] = l.budget[f];
      source[f] = l.source;
    }
  }
  return { budget, source };
}

/** What was spent: the figures budgets limit, and cache reads shown beside them (not counted). */
export interface Spending {
  /** uncached input + cache writes + output (reasoning is part of output). */
  tokens: number;
  /** Input served from cache: shown, not counted against `tokens`. */
  cache_read: number;
  /** USD, summed over the runs that report a cost (codex reports none). */
  cost: number;
  runs: number;
  /** Wall time of the runs, ms (a run in flight counts up to now). */
  time: number;
  /** Runs and commands that reported no cost (a cost budget cannot see them). */
  uncosted: number;
  /** Entries in flight whose time counts up to now (so `time` grows by this many ms per ms). */
  open: number;
}

export const countedTokens = (t: TokenUse) => t.uncached_input + t.cache_write + t.output;

/** A run record or a thread command, as far as spending goes. */
export interface SpendEntry {
  started_at: string;
  ended_at: string | null;
  tokens: TokenUse | null;
  cost_usd: number | null;
  /** Counts as a run (thread commands add tokens, cost and time, not runs). */
  run: boolean;
  /** The measured wall time (run records have it; their times are whole seconds). */
  duration_ms?: number | null;
  /** The exact start (run records and thread commands have it), compared with an exact reopen instant. */
  started_ms?: number | null;
}

/** Where spending counts from: `ms`, and whether it is exact (a reopen's ms) or a whole second. */
export interface SpendSince {
  ms: number;
  exact: boolean;
}

/**
 * Sums the entries started at or after `since` (the day's start, or the reopen of a budget-blocked
 * item). With `reopen`, the entries before the reopen are the ones that spent the budget and must not
 * count again. A reopen writes its instant to the ms and a run record or thread command has its exact
 * start, so an entry counts when it started after that instant. Other times are whole seconds
 * (records, and a `budget_since`, written before they kept ms): an entry and the reopen after it can
 * share a second, so an entry that also ended by that second is taken as the one before the reopen.
 */
export function sumSpending(entries: SpendEntry[], nowMs: number, since: number | SpendSince = -Infinity, reopen = false): Spending {
  const s: Spending = { tokens: 0, cache_read: 0, cost: 0, runs: 0, time: 0, uncosted: 0, open: 0 };
  const { ms: sinceMs, exact } = typeof since === 'number' ? { ms: since, exact: false } : since;
  const sinceSec = Math.floor(sinceMs / 1000) * 1000;
  for (const e of entries) {
    const start = Date.parse(e.started_at);
    if (reopen && exact && e.started_ms != null) {
      if (!(e.started_ms > sinceMs)) continue;
    } else {
      if (!(start >= sinceSec)) continue;
      if (reopen && e.ended_at && Date.parse(e.ended_at) <= sinceSec) continue;
    }
    if (e.tokens) {
      s.tokens += countedTokens(e.tokens);
      s.cache_read += e.tokens.cache_read;
    }
    if (e.cost_usd != null) s.cost += e.cost_usd;
    else if (e.ended_at) s.uncosted++;
    if (e.run) s.runs++;
    const end = e.ended_at ? Date.parse(e.ended_at) : nowMs;
    if (e.duration_ms != null) s.time += e.duration_ms;
    else {
      if (end > start) s.time += end - start;
      if (!e.ended_at) s.open++;
    }
  }
  s.cost = Math.round(s.cost * 1e10) / 1e10;
  return s;
}

/**
 * When a `time` limit not yet spent will be, as runs in flight keep counting (null: never by the clock
 * alone). A cached verdict is good until then (the frontier's result cache takes it as a time bound).
 */
export function timeSpentAt(b: Budget, s: Spending, nowMs: number): number | null {
  const limit = b.time;
  if (limit == null || !s.open || s.time >= limit) return null;
  return nowMs + Math.ceil((limit - s.time) / s.open);
}

export type BudgetState = 'none' | 'ok' | 'warn' | 'exhausted';

export interface FigureVerdict {
  figure: Figure;
  limit: number;
  spent: number;
  left: number;
  /** spent / limit. */
  ratio: number;
  state: 'ok' | 'warn' | 'exhausted';
  source?: string;
}

export interface BudgetVerdict {
  state: BudgetState;
  /** The figure that decided the state (the most used one), null without a limit. */
  figure: Figure | null;
  figures: FigureVerdict[];
}

/**
 * Compares spending with a budget: a figure is exhausted once spent >= limit (the next run would
 * exceed it), warn from `warnAt` (a fraction, 0.8 by default). The worst figure decides.
 */
export function budgetVerdict(b: Budget, s: Spending, warnAt = 0.8, source: Partial<Record<Figure, string>> = {}): BudgetVerdict {
  const figures: FigureVerdict[] = [];
  for (const f of FIGURES) {
    const limit = b[f];
    if (limit == null) continue;
    const spent = s[f];
    const ratio = limit > 0 ? spent / limit : 1;
    const state = spent >= limit ? 'exhausted' : ratio >= warnAt ? 'warn' : 'ok';
    figures.push({ figure: f, limit, spent, left: Math.max(0, f === 'cost' ? Math.round((limit - spent) * 1e10) / 1e10 : limit - spent), ratio, state, ...(source[f] ? { source: source[f] } : {}) });
  }
  if (!figures.length) return { state: 'none', figure: null, figures };
  const rank = { ok: 0, warn: 1, exhausted: 2 } as const;
  const worst = figures.reduce((a, b2) => (rank[b2.state] > rank[a.state] || (rank[b2.state] === rank[a.state] && b2.ratio > a.ratio) ? b2 : a));
  return { state: worst.state, figure: worst.figure, figures };
}

/** `tokens 2.1M of 2M spent, 0 left` for every figure (or only the worst). */
export function describeFigures(v: BudgetVerdict, only?: 'worst'): string {
  const list = only ? v.figures.filter((f) => f.figure === v.figure) : v.figures;
  return list.map((f) => `${f.figure} ${fmtFigure(f.figure, f.spent, true)} of ${fmtFigure(f.figure, f.limit, true)} spent, ${fmtFigure(f.figure, f.left, true)} left`).join('; ');
}

/** The blocker reason the watcher writes; the frontier and the watcher recognize it by this start. */
export const BUDGET_EXHAUSTED = 'budget_exhausted';

export function budgetBlocker(itemId: string, v: BudgetVerdict, nowMs: number): { reason: string; recovery: string; since: string } {
  return {
    reason: `${BUDGET_EXHAUSTED}: ${describeFigures(v, 'worst')}`,
    recovery: `raise it: \`holon edit ${itemId} --budget ${v.figure}=MORE\` (reopens the item), or \`holon reopen ${itemId}\` to grant the same budget afresh (spending counts from the reopen)`,
    since: iso(nowMs),
  };
}

export const isBudgetBlocker = (b: { reason: string } | null | undefined) => Boolean(b?.reason.startsWith(BUDGET_EXHAUSTED));

/** The warning threshold: `80%` or 0.8; out of (0, 1] is an error naming where. */
export function parseWarnAt(value: unknown, where: string): number {
  if (value == null) return 0.8;
  const s = String(value).trim();
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(s);
  const n = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(n > 0 && n <= 1)) throw invalid(`${where}: warn "${s}" is not a share of the budget`, 'use a percentage such as 80% (or a fraction such as 0.8)');
  return n;
}

/** The calendar day of `nowMs` in `timeZone`: its date and where it starts and ends (ms). */
export function dayWindow(nowMs: number, timeZone: string): { day: string; startMs: number; endMs: number } {
  const day = localDate(nowMs, timeZone);
  const [y, m, d] = day.split('-').map(Number);
  const startMs = zonedMidnight(y, m, d, timeZone);
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  const endMs = zonedMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone);
  return { day, startMs, endMs };
}

const fmtCache = new Map<string, Intl.DateTimeFormat>();
function fmt(timeZone: string): Intl.DateTimeFormat {
  let f = fmtCache.get(timeZone);
  if (!f) fmtCache.set(timeZone, (f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })));
  return f;
}

function parts(ms: number, timeZone: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of fmt(timeZone).formatToParts(new Date(ms))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

function localDate(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/**
 * The instant the local day y-m-d starts in the zone: its midnight (offsets found by two corrections),
 * or, where midnight does not exist (a DST jump at 00:00, as in Asia/Beirut), the first instant of that
 * date, found by bisection.
 */
function zonedMidnight(y: number, m: number, d: number, timeZone: string): number {
  const target = Date.UTC(y, m - 1, d);
  let guess = target;
  for (let i = 0; i < 3; i++) {
    const p = parts(guess, timeZone);
    const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    const diff = local - target;
    if (diff === 0) break;
    guess -= diff;
  }
  const day = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  if (localDate(guess, timeZone) === day && localDate(guess - 1, timeZone) < day) return guess;
  // Offsets stay within UTC-12..+14: 15 h either side brackets the day's first instant.
  let lo = target - 15 * 3_600_000;
  let hi = target + 15 * 3_600_000;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localDate(mid, timeZone) < day) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Checks a time zone name (holon.yaml `timezone:`); a bad one is an error naming the file. */
export function checkTimeZone(tz: string, where: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    throw invalid(`${where}: timezone "${tz}" is not a time zone`, 'use an IANA name such as UTC, Europe/Paris or America/New_York');
  }
}

const JSON_KEY: Record<Figure, string> = { tokens: 'tokens', cost: 'cost_usd', runs: 'runs', time: 'time_ms' };

/** A budget, what was spent and what is left, as `show --json` and `runs --json` print it. */
export interface BudgetJson {
  state: BudgetState;
  /** The figure that decides the state. */
  figure: Figure | null;
  /** The limits that apply (null: unlimited on purpose), keyed tokens, cost_usd, runs, time_ms. */
  limits: Record<string, number | null>;
  /** Where each limit comes from: item, agents/A/AGENTS.md policy.budget, holon.yaml budget.item. */
  source: Record<string, string>;
  spent: { tokens: number; cache_read: number; cost_usd: number; runs: number; time_ms: number; uncosted: number };
  /** What is left of each limited figure (0 once spent). */
  left: Record<string, number>;
  /** Cache reads are shown, never counted against `tokens`. */
  cache_reads_counted: false;
}

export function budgetJson(b: Budget, source: Partial<Record<Figure, string>>, s: Spending, v: BudgetVerdict): BudgetJson {
  const limits: Record<string, number | null> = {};
  const src: Record<string, string> = {};
  for (const f of FIGURES) {
    if (!(f in b)) continue;
    limits[JSON_KEY[f]] = b[f] ?? null;
    if (source[f]) src[JSON_KEY[f]] = source[f]!;
  }
  const left: Record<string, number> = {};
  for (const f of v.figures) left[JSON_KEY[f.figure]] = f.left;
  return {
    state: v.state, figure: v.figure, limits, source: src,
    spent: { tokens: s.tokens, cache_read: s.cache_read, cost_usd: s.cost, runs: s.runs, time_ms: s.time, uncosted: s.uncosted },
    left, cache_reads_counted: false,
  };
}

/** One line of spending for people: `14.7k tokens (+102.6k cache reads, not counted), $0.1746, 2 runs, 3.1s`. */
export function describeSpending(s: Spending): string {
  const parts = [`${fmtFigure('tokens', s.tokens)}${s.cache_read ? ` (+${s.cache_read} cache reads, not counted)` : ''}`];
  if (s.cost || !s.uncosted) parts.push(fmtFigure('cost', s.cost));
  parts.push(fmtFigure('runs', s.runs), fmtFigure('time', s.time));
  return parts.join(', ');
}

/** `budget: ok (item tokens=20k): tokens 14.7k of 20k spent, 5.3k left; ...` */
export function describeBudget(label: string, v: BudgetVerdict): string {
  return v.state === 'none' ? `${label}: none` : `${label}: ${v.state}${v.state === 'exhausted' ? ` (${v.figure})` : ''}: ${describeFigures(v)}`;
}
