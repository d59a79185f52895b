import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { yamlLib } from '../core/yaml-lib.js';
import type { FrontierInput, Workspace } from '../core/frontier.js';
import type { RecordProblem } from '../core/record-codec.js';
import { fileKey } from './cache-file.js';
import { capabilityStates } from './capabilities.js';
import { loadGraph, type LoadedGraph } from './graph-index.js';
import { agentDir, type Home } from './home.js';
import { objectsSignature, readHead, readWorkspace } from './workspace.js';
import { ancestryCache, type AncestryCache } from './ancestry-cache.js';
import { maxAgeMs, NO_POLICY, type Ancestry, type FrontierPolicy } from '../core/frontier-freshness.js';
import { readRecordText } from './record-file.js';
import { HolonError } from '../core/errors.js';
import { describeFigures, timeSpentAt, type SpendEntry } from '../core/budget.js';
import { budgetsConfigured, dailyBudgetState, itemBudgetState, spendingByItem, spendingSignature, type PolicyMemo } from './budget.js';

const eventsDir = (home: Home, agent: string) => join(agentDir(home, agent), 'events');

/** The latest admission time (ms) of each resource of an agent's admitted events (agents/A/events/ID.yaml with status admitted). */
export function admittedEventResources(home: Home, agent: string): Map<string, number> {
  const dir = eventsDir(home, agent);
  const out = new Map<string, number>();
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  } catch {
    return out;
  }
  for (const f of names) {
    try {
      const d = yamlLib().parse(readRecordText(join(dir, f))) as Record<string, unknown> | null;
      if (d && d.status === 'admitted' && d.resource != null) {
        // The latest admission per resource; one with no readable time counts as the newest (it
        // met any condition before resume_since existed, and still does).
        const at = typeof d.admitted_at === 'string' ? Date.parse(d.admitted_at) : NaN;
        const ms = Number.isNaN(at) ? Infinity : at;
        const r = String(d.resource);
        if (!(out.get(r)! >= ms)) out.set(r, ms);
      }
    } catch {
      // A broken event record is `holon check`'s to report; it satisfies nothing here.
    }
  }
  return out;
}

/** A signature of an agent's event records (names and stat keys), to tell whether they changed. */
export function eventsSignature(home: Home, agent: string): string {
  const dir = eventsDir(home, agent);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return '';
  }
  return names.map((n) => `${n}:${fileKey(join(dir, n)) ?? '-'}`).join('|');
}

/**
 * The frontier's budget check (issue 17): reads run records and threads only when a budget can apply
 * (the item sets one, or AGENTS.md / holon.yaml give a default), once per command.
 */
function budgetCheck(home: Home, agent: string, nowMs: number, used: InputUse): FrontierInput['budget'] {
  let conf: ReturnType<typeof budgetsConfigured> | null = null;
  // The day's verdict: spent (detail, until the day ends), or not yet, with when a run in flight spends it.
  let daily: { detail: string | null; untilMs: number | null } | undefined;
  let spending: Map<string, SpendEntry[]> | null = null;
  // Each agent's AGENTS.md policy is read once per evaluation, not once per item.
  const memo: PolicyMemo = new Map();
  return (item) => {
    conf ??= budgetsConfigured(home, agent, memo);
    if (conf.daily) {
      if (daily === undefined) {
        used.spending = true;
        const d = dailyBudgetState(home, agent, nowMs, memo);
        daily = d.verdict.state === 'exhausted'
          ? { detail: `agent ${agent}'s daily budget for ${d.day} (${d.timezone}) is spent: ${describeFigures(d.verdict, 'worst')}; its runs resume at ${d.resets_at}`, untilMs: d.resetsMs }
          : { detail: null, untilMs: timeSpentAt(d.budget, d.spent, nowMs) };
      }
      if (daily.detail) return daily;
    }
    const dayFlip = daily?.untilMs ?? null;
    const flipOnly = dayFlip === null ? null : { detail: null, untilMs: dayFlip };
    if (!conf.item && item.extra.budget == null) return flipOnly;
    used.spending = true;
    spending ??= spendingByItem(home, agent);
    let s;
    try {
      s = itemBudgetState(home, item, nowMs, spending.get(item.id) ?? [], memo);
    } catch (e) {
      // The watcher refuses an item whose budget does not parse: the frontier says so rather than offer it.
      if (!(e instanceof HolonError)) throw e;
      const fix = e.message.startsWith(`${item.id} budget`) ? `\`holon edit ${item.id} --budget FIGURE=LIMIT\` replaces it` : 'fix the file it names';
      return { detail: `${e.message}: ${fix}${e.hint ? ` (${e.hint})` : ''}`, untilMs: null, code: 'budget_invalid' };
    }
    if (s.verdict.state === 'exhausted') return { detail: `budget spent: ${describeFigures(s.verdict, 'worst')} (holon edit ${item.id} --budget ... raises it)`, untilMs: null };
    const own = timeSpentAt(s.budget, s.spent, nowMs);
    const until = own === null ? dayFlip : dayFlip === null ? own : Math.min(own, dayFlip);
    return until === null ? null : { detail: null, untilMs: until };
  };
}

/** holon.yaml's `freshness: {max_age}` and `workspace: {require_worktree}` (validated when the home opens). */
export function frontierPolicy(home: Home): FrontierPolicy {
  const c = home.config;
  if (!c.freshness && !c.workspace) return NO_POLICY;
  return { max_age_ms: c.freshness?.max_age ? maxAgeMs(c.freshness.max_age) || null : null, require_worktree: c.workspace?.require_worktree === true };
}

/**
 * What the evaluation looked at beyond the work files (for the result cache). Every signature here is
 * taken BEFORE the data it vouches for is read: a run record, event or fetch landing while the
 * evaluation runs then leaves the stored signature behind the disk, so the next call recomputes. Taken
 * after the read, it would sign the newer state as seen by an answer built on the older one, and the
 * cache would serve that stale answer until something else changed.
 */
export interface InputUse {
  workspace: Workspace | null;
  /** eventsSignature of each agent whose event records were read, taken before the read. */
  eventSigs: Record<string, string>;
  /**
   * A budget was evaluated from run records and thread commands (issue 17). Setting it true (which
   * the budget check does before its first read) takes spendingSig at that moment.
   */
  spending: boolean;
  /** spendingSignature taken when the budget check first read the run records; null: never read. */
  spendingSig: string | null;
  /** The HEAD commit when the freshness check asked for it (undefined: never asked). */
  head?: string | null;
  /**
   * git was asked how a recorded commit relates to HEAD: the answer depends on this repository's
   * objects (a shallow or single-branch clone knows fewer), which no signature here covers but the
   * unknown commits'. An answer that asked is never kept by content (content-answer.ts).
   */
  ancestry?: boolean;
  /** Recorded commits this repository did not have: a fetch may bring them, so the cache rechecks them. */
  unknownCommits: string[];
  /** objectsSignature of each unknown commit (same order), taken before git was asked about it. */
  unknownObjects: string[];
  /** Where the evaluation looked at git from. */
  cwd: string;
}

/**
 * Everything the frontier evaluator reads, assembled lazily: git runs only when an item names a repo
 * or branch, event folders are read only when a resume_when names an event.
 */
export function buildFrontierInput(home: Home, agent: string, opts: { holder: string; nowMs: number; cwd: string }, loaded: Pick<LoadedGraph, 'items' | 'problems'>): { input: FrontierInput; problems: RecordProblem[]; used: InputUse } {
  const used: InputUse = {
    workspace: null, eventSigs: {}, spendingSig: null, unknownCommits: [], unknownObjects: [], cwd: opts.cwd,
    get spending() {
      return this.spendingSig !== null;
    },
    set spending(v: boolean) {
      if (v && this.spendingSig === null) this.spendingSig = spendingSignature(home);
    },
  };
  const events = new Map<string, Map<string, number>>();
  const ancestry = new Map<string, Ancestry>();
  let homeRepo: string | null | undefined;
  let known: AncestryCache | undefined;
  const head = () => (used.head === undefined ? (used.head = readHead(opts.cwd)) : used.head);
  const input: FrontierInput = {
    agent,
    holder: opts.holder,
    nowMs: opts.nowMs,
    items: loaded.items,
    capabilities: capabilityStates(home, agent),
    workspace: () => (used.workspace ??= readWorkspace(opts.cwd)),
    admittedEvents: (a) => {
      let s = events.get(a);
      if (!s) {
        used.eventSigs[a] = eventsSignature(home, a);
        events.set(a, (s = admittedEventResources(home, a)));
      }
      return s;
    },
    budget: budgetCheck(home, agent, opts.nowMs, used),
    head,
    // Only for items that reach the freshness check; git runs once per commit never seen before (ancestry-cache.ts).
    ancestry: (commit) => {
      let a = ancestry.get(commit);
      if (!a) {
        used.ancestry = true;
        const h = head();
        const cache = h ? (known ??= ancestryCache(home, opts.cwd)) : null;
        a = cache && h ? cache.ask(commit, h) : 'unknown';
        ancestry.set(commit, a);
        if (a === 'unknown') {
          used.unknownCommits.push(commit);
          used.unknownObjects.push(cache?.objectsBefore(commit) ?? objectsSignature(opts.cwd, [commit]));
        }
      }
      return a;
    },
    policy: frontierPolicy(home),
    homeRepo: () => (homeRepo === undefined ? (homeRepo = readWorkspace(home.root).common) : homeRepo),
  };
  return { input, problems: loaded.problems, used };
}

export async function loadFrontierInput(home: Home, agent: string, opts: { holder: string; nowMs: number; cwd: string }) {
  return buildFrontierInput(home, agent, opts, await loadGraph(home));
}
