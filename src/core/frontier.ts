import { parseScope } from './decision-scope.js';
import { CHECK_FNS, checkGates, liveClaim, repoKey, type CheckResult, type FrontierInput, type GateRef, type Lease, type Prepared, type TimeBounds } from './frontier-checks.js';
import { sameHolder } from './claims.js';
import { CHANNELS, CHECKS, FLAGS, REASONS, RUNNABLE, type Channel } from './frontier-codes.js';
import { cyclesThrough, type GraphNode } from './graph-check.js';
import { normalizeDecisionScope } from './graph-fields.js';
import { PRIORITIES, type WorkItem } from './types.js';
import { cycleNode, type ReadLog, type VerdictRecord } from './frontier-reads.js';
import { iso } from './time.js';

export type { CapabilityState, CheckResult, FrontierInput, TimeBounds, Workspace } from './frontier-checks.js';

/**
 * The frontier: what one agent may do now, and why not. One pure evaluator serves `holon frontier`,
 * `holon explain` and `holon pick`: the frontier stops at an item's first failing check, explain runs
 * them all; the first failure is the same in both.
 */

export function prepare(input: FrontierInput, byId: Map<string, WorkItem> = new Map()): Prepared {
  const bounds: TimeBounds = { from: -Infinity, until: Infinity };
  const nodes: GraphNode[] = [];
  const gatesByKind = new Map<string, GateRef[]>();
  const leasesByRepo = new Map<string, Lease[]>();
  const predecessors = new Map<string, WorkItem[]>();
  for (const item of input.items) {
    if (item.role && item.successors.length) {
      for (const s of item.successors) {
        const list = predecessors.get(s);
        if (list) list.push(item);
        else predecessors.set(s, [item]);
      }
    }
    if (!byId.has(item.id)) byId.set(item.id, item);
    // Only live items can hold each other up: a cycle through a done item blocks nobody (check still reports it).
    if (cycleNode(item)) nodes.push({ id: item.id, file: '', depends_on: item.depends_on, successors: [], superseded_by: null });
    if (item.class === 'user_gate') {
      const ds = normalizeDecisionScope(item.decision_scope);
      const scope = ds ? parseScope(ds.scope) : null;
      if (scope && !('error' in scope)) {
        const decision = ds!.decision === 'approved' || ds!.decision === 'rejected' ? ds!.decision : null;
        const pending = !decision && item.status !== 'done' && !item.superseded_by;
        const list = gatesByKind.get(scope.kind) ?? [];
        list.push({ item, scope, decision, pending });
        gatesByKind.set(scope.kind, list);
      }
    }
    if (item.write_scope.length && item.status !== 'done' && liveClaim({ input, bounds }, item.claim)) {
      const list = leasesByRepo.get(repoKey(item)) ?? [];
      list.push({ item, holder: item.claim!.holder, scopes: item.write_scope });
      leasesByRepo.set(repoKey(item), list);
    }
  }
  const nodeById = new Map(nodes.map((n) => [n.id, n]));
  // Only items with dependencies can be on a cycle; ids without an entry end the walk.
  const cycles = cyclesThrough(nodes, nodeById as Map<string, GraphNode>);
  return { input, byId, cycles, gatesByKind, coverMemo: new Map(), leasesByRepo, predecessors, verbose: false, bounds };
}

export interface Verdict {
  item: WorkItem;
  channel: Channel;
  code: string;
  detail: string;
  checks: CheckResult[];
  own: boolean;
  gates: string[];
  /** Runnable but flagged by the freshness check (stale or missing evidence). */
  flagged: boolean;
}

/** Runs the checks in order; stops at the first failure unless `all` (explain). */
export function evaluate(p: Prepared, item: WorkItem, all = false): Verdict {
  const checks: CheckResult[] = [];
  let first: CheckResult | undefined;
  let own = false;
  for (const fn of CHECK_FNS) {
    const r = fn(p, item);
    checks.push(r);
    if (r.own) own = true;
    if (!r.pass && !first) {
      first = r;
      if (!all) break;
    }
  }
  if (!first) {
    // Freshness passes but may flag: the item stays runnable with the flag as its code.
    const flag = checks[checks.length - 1].code !== 'ok' ? checks[checks.length - 1] : undefined;
    if (flag) return { item, channel: 'runnable', code: flag.code, detail: flag.detail, checks, own, gates: [], flagged: true };
    return { item, channel: 'runnable', code: RUNNABLE, detail: checks.find((c) => c.own)?.detail ?? 'every check passed', checks, own, gates: [], flagged: false };
  }
  const info = REASONS[first.code as keyof typeof REASONS];
  // A live item stopped earlier (an open dependency) still waits on its pending gates: the gate's
  // `blocks` names it, as `explain` does. A closed or parked item (status failed) waits on none.
  const gateCheck = checks.find((c) => c.check === 'gates') ?? (checks[0].pass && item.needs_decision.length ? checkGates(p, item) : undefined);
  return { item, channel: info.channel, code: first.code, detail: first.detail, checks, own, gates: gateCheck?.gates ?? [], flagged: false };
}

const PRI_RANK = new Map<string, number>(PRIORITIES.map((p, i) => [p, i]));

/**
 * The frontier's order as one string per entry, compared as strings: own claim first, then priority
 * P0..P4 then none, then fresh before flagged, then age, then id.
 */
const orderKey = (own: boolean, priority: string | null, flagged: boolean, createdAt: string, id: string) =>
  `${own ? 0 : 1}${PRI_RANK.get(priority ?? '') ?? PRIORITIES.length}${flagged ? 1 : 0}${createdAt}\u0000${id}`;

/**
 * An order key with another priority (the second character is the priority's rank): for an entry a
 * cached answer's cap left out, whose key was stored but whose priority changed (frontier-cut.ts).
 */
export const keyWithPriority = (key: string, priority: string | null) => `${key[0]}${PRI_RANK.get(priority ?? '') ?? PRIORITIES.length}${key.slice(2)}`;

const AFTER_CLAIMS = new Set<string>(CHECKS.slice(CHECKS.indexOf('claims') + 1));

/**
 * The order key of an entry as the frontier printed it, for a cached answer that moves an entry whose
 * priority changed (frontier-titles.ts). Its verdict's `own` is not printed, but follows from what
 * is: the claims check sets it (a live claim of `holder`) and only runs when every check before it
 * passed, so it holds for an entry with such a claim whose first failing check comes after the claims
 * check, or that is runnable. Flagged entries are the runnable ones with a freshness code.
 */
export function entryOrderKey(e: Pick<FrontierEntry, 'id' | 'priority' | 'created_at' | 'code' | 'claim'>, holder: string): string {
  const reached = e.code === RUNNABLE || AFTER_CLAIMS.has(REASONS[e.code as keyof typeof REASONS]?.check);
  return orderKey(Boolean(e.claim && reached && sameHolder(e.claim.holder, holder)), e.priority, FLAGS.has(e.code), e.created_at, e.id);
}

/** Sorts in frontier order (orderKey) through one precomputed key per verdict. */
export function sortVerdicts(list: Verdict[]): Verdict[] {
  const keyed = list.map((v) => ({ v, k: orderKey(v.own, v.item.priority, v.flagged, v.item.created_at, v.item.id) }));
  keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.map((x) => x.v);
}

export interface FrontierEntry {
  id: string;
  title: string;
  agent: string;
  class: string;
  status: string;
  priority: string | null;
  created_at: string;
  code: string;
  detail: string;
  claim: { holder: string; expires_at: string | null } | null;
}

export interface DecisionEntry extends FrontierEntry {
  scope: string | null;
  /** This agent's items the gate would unblock. */
  blocks: string[];
}

export interface Frontier {
  agent: string;
  holder: string;
  now: string;
  counts: Record<(typeof CHANNELS)[number] | 'closed' | 'total', number> & { by_code: Record<string, number> };
  runnable: FrontierEntry[];
  needs_decision: DecisionEntry[];
  needs_action: FrontierEntry[];
  waiting: FrontierEntry[];
  resume_candidates: FrontierEntry[];
  not_runnable: FrontierEntry[];
  truncated: Partial<Record<(typeof CHANNELS)[number], number>>;
}

/** A verdict as the frontier prints it. */
export function entryOf(p: Prepared, v: Verdict): FrontierEntry {
  const i = v.item;
  return {
    id: i.id, title: i.title, agent: i.agent, class: i.class, status: i.status, priority: i.priority, created_at: i.created_at,
    code: v.code, detail: v.detail,
    claim: liveClaim(p, i.claim) ? { holder: i.claim!.holder, expires_at: i.claim!.expires_at ?? null } : null,
  };
}

/** The code of a closed item (done, or superseded), counted without a verdict. */
export const closedCode = (item: WorkItem) => (item.status === 'done' ? 'status_done' : 'superseded');

/**
 * Every verdict of the agent's items (unsorted); closed ones are cheap (the status check ends them).
 * With `reads`, the ids each verdict looked up in `p.byId` (a ReadLog) are kept per item.
 */
export function verdicts(p: Prepared, closed?: (code: string) => void, reads?: Map<string, string[]>): Verdict[] {
  const out: Verdict[] = [];
  const log = reads ? (p.byId as ReadLog) : null;
  for (const item of p.input.items) {
    if (item.agent !== p.input.agent && item.agent) continue;
    // Most of a home is closed work: the status check would end it first; count it without a verdict.
    if (closed && (item.status === 'done' || item.superseded_by)) {
      closed(closedCode(item));
      continue;
    }
    if (log) log.reading = [];
    out.push(evaluate(p, item));
    if (log) {
      if (log.reading!.length) reads!.set(item.id, log.reading!);
      log.reading = null;
    }
  }
  return out;
}

/** The agent's runnable items in frontier order (what `pick` tries, top first). */
export function runnableInOrder(p: Prepared): Verdict[] {
  return sortVerdicts(verdicts(p).filter((v) => v.channel === 'runnable'));
}

/**
 * The frontier; `opts.bounds` receives the time window in which the same inputs give the same answer,
 * `opts.record` (with a ReadLog for byId) what each verdict read (core/frontier-reads.ts).
 */
export function computeFrontier(input: FrontierInput, opts: { limit?: number; bounds?: TimeBounds; record?: { log: ReadLog; out: VerdictRecord } } = {}): Frontier {
  const p = prepare(input, opts.record?.log);
  const byCode: Record<string, number> = {};
  let closedCount = 0;
  const all = verdicts(p, (code) => {
    closedCount++;
    byCode[code] = (byCode[code] ?? 0) + 1;
  }, opts.record?.out.reads);
  if (opts.record) {
    opts.record.out.unique = p.byId.size;
    opts.record.out.cycles = p.cycles.size;
  }
  const nowIso = iso(input.nowMs);
  const by: Record<string, Verdict[]> = {};
  for (const c of [...CHANNELS, 'closed']) by[c] = [];
  const blocks = new Map<string, string[]>();
  for (const v of all) {
    by[v.channel].push(v);
    byCode[v.code] = (byCode[v.code] ?? 0) + 1;
    for (const g of v.gates) {
      const list = blocks.get(g);
      if (list) list.push(v.item.id);
      else blocks.set(g, [v.item.id]);
    }
  }
  // Gates of other agents that block this agent's items are decisions this agent needs, too.
  const decisionVerdicts = [...by.needs_decision];
  const seen = new Set(decisionVerdicts.map((v) => v.item.id));
  for (const g of blocks.keys()) {
    const item = p.byId.get(g);
    if (item && !seen.has(g)) {
      seen.add(g);
      decisionVerdicts.push({ item, channel: 'needs_decision', code: 'decision_required', detail: `a person must decide ${normalizeDecisionScope(item.decision_scope)?.scope}: holon decide ${g} --approve|--reject`, checks: [], own: false, gates: [], flagged: false });
    }
  }
  const decisions = sortVerdicts(decisionVerdicts);
  for (const c of CHANNELS) by[c] = sortVerdicts(by[c]);
  // Whatever order the items came in, the output is the same: codes sorted, blocked ids sorted.
  const byCodeSorted: Record<string, number> = {};
  for (const k of Object.keys(byCode).sort()) byCodeSorted[k] = byCode[k];
  for (const list of blocks.values()) list.sort();
  const counts = { total: all.length + closedCount, closed: by.closed.length + closedCount, by_code: byCodeSorted } as Frontier['counts'];
  for (const c of CHANNELS) counts[c] = c === 'needs_decision' ? decisions.length : by[c].length;
  const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
  const truncated: Frontier['truncated'] = {};
  const cap = (c: (typeof CHANNELS)[number]) => {
    const list = by[c];
    if (list.length > limit) truncated[c] = list.length - limit;
    return list.slice(0, limit).map((v) => entryOf(p, v));
  };
  const result: Frontier = {
    agent: input.agent,
    holder: input.holder,
    now: nowIso,
    counts,
    runnable: cap('runnable'),
    needs_decision: decisions.map((v) => ({ ...entryOf(p, v), scope: normalizeDecisionScope(v.item.decision_scope)?.scope ?? null, blocks: blocks.get(v.item.id) ?? [] })),
    needs_action: cap('needs_action'),
    waiting: cap('waiting'),
    resume_candidates: cap('resume_candidates'),
    not_runnable: cap('not_runnable'),
    truncated,
  };
  if (opts.bounds) Object.assign(opts.bounds, p.bounds);
  return result;
}

export interface Explanation {
  id: string;
  agent: string;
  holder: string;
  channel: Channel;
  code: string;
  detail: string;
  runnable: boolean;
  checks: Array<{ check: string; pass: boolean; code: string; detail: string }>;
}

export function explain(input: FrontierInput, id: string): Explanation {
  const p = prepare(input);
  const item = p.byId.get(id);
  if (!item) throw new Error(`explain: no item ${id} in the input`);
  const v = evaluate({ ...p, verbose: true }, item, true);
  return {
    id, agent: input.agent, holder: input.holder, channel: v.channel, code: v.code, detail: v.detail, runnable: v.channel === 'runnable',
    checks: v.checks.map((c) => ({ check: c.check, pass: c.pass, code: c.code, detail: c.detail })),
  };
}
