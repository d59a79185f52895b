import { HolonError, invalid } from '../../core/errors.js';
import { cycleText, cyclesThrough, type GraphNode } from '../../core/graph-check.js';
import { normalizeDecisionScope } from '../../core/graph-fields.js';
import { validMaxAge } from '../../core/frontier-freshness.js';
import { CLASSES, PRIORITIES, type Priority, type TaskClass, type WorkItem } from '../../core/types.js';
import { appendHistory, viewOf, workItemJson, type WorkDoc } from '../../core/workitem.js';
import { formatBudget, isBudgetBlocker, parseBudget, type Budget } from '../../core/budget.js';
import { iso } from '../../core/time.js';
import { itemBudget, itemBudgetState, ownBudget } from '../../store/budget.js';
import type { Home } from '../../store/home.js';
import { loadAllWork } from '../../store/work-index.js';
import { locateWork, mutateWork } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { assertGraphFields, clearing } from '../graph-options.js';
import { assertAuthority } from '../../ops/decide.js';
import { out, printJson } from '../output.js';
import { targetItem } from '../work-args.js';

/** The list fields `edit` changes with --add-X / --remove-X. */
export const LIST_FIELDS = ['depends_on', 'requires', 'write_scope', 'needs_decision', 'exclude', 'resume_when'] as const;
type ListField = (typeof LIST_FIELDS)[number];

const camel = (f: string) => f.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

export interface EditOptions {
  title?: string;
  class?: string;
  action?: string;
  role?: string;
  requireWorktree?: string;
  maxAge?: string;
  priority?: string;
  repo?: string;
  branch?: string;
  decisionScope?: string;
  budget?: string;
  json?: boolean;
  [flag: string]: unknown;
}

function applyEdits(item: WorkItem, opts: EditOptions, resolveId: (id: string) => string): WorkItem {
  const next: WorkItem = { ...item };
  if (opts.title !== undefined) {
    if (!opts.title.trim()) throw invalid('--title is empty', 'give a short title');
    next.title = opts.title.trim().slice(0, 120);
  }
  if (opts.class !== undefined) {
    if (!CLASSES.includes(opts.class as TaskClass)) throw invalid(`unknown class "${opts.class}"`, `use one of ${CLASSES.join(', ')}`);
    next.class = opts.class as TaskClass;
  }
  if (opts.priority !== undefined) {
    const p = opts.priority.toUpperCase();
    if (clearing(opts.priority)) next.priority = null;
    else if (!PRIORITIES.includes(p as Priority)) throw invalid(`unknown priority "${opts.priority}"`, 'use P0 (highest) .. P4, or none');
    else next.priority = p as Priority;
  }
  for (const key of ['action', 'role', 'repo', 'branch'] as const) {
    const v = opts[key];
    if (v !== undefined) next[key] = clearing(v) ? null : v.trim();
  }
  if (opts.requireWorktree !== undefined) {
    const v = opts.requireWorktree.toLowerCase();
    if (clearing(v)) next.workspace = null;
    else if (['yes', 'true', 'no', 'false'].includes(v)) next.workspace = { ...item.workspace, require_worktree: v === 'yes' || v === 'true' };
    else throw invalid(`--require-worktree "${opts.requireWorktree}" is not yes, no or none`, 'holon edit ID --require-worktree yes');
  }
  if (opts.maxAge !== undefined) {
    if (clearing(opts.maxAge)) next.freshness = null;
    else if (!validMaxAge(opts.maxAge)) throw invalid(`--max-age "${opts.maxAge}" is not a duration`, 'use e.g. 7d, 36h, or off');
    else next.freshness = { ...item.freshness, max_age: opts.maxAge.trim() };
  }
  if (opts.decisionScope !== undefined) {
    const cur = normalizeDecisionScope(item.decision_scope);
    if (cur?.decision) throw invalid(`${item.id} was already ${cur.decision}; its scope is part of that decision`, 'create a new user_gate for another scope');
    next.decision_scope = clearing(opts.decisionScope) ? null : { scope: opts.decisionScope };
  }
  for (const field of LIST_FIELDS) {
    const add = (opts[`add${cap(camel(field))}`] as string[] | undefined) ?? [];
    const remove = (opts[`remove${cap(camel(field))}`] as string[] | undefined) ?? [];
    let list = [...next[field]];
    for (const r of remove) {
      const match = field === 'depends_on' ? list.find((x) => x === r || x.startsWith(r)) : list.find((x) => x === r);
      if (!match) throw invalid(`${field} has no "${r}"`, `it holds: ${list.join(', ') || '(nothing)'}`);
      list = list.filter((x) => x !== match);
    }
    for (const a of add) {
      const v = field === 'depends_on' ? resolveId(a) : a;
      if (!list.includes(v)) list.push(v);
    }
    next[field as ListField] = list;
  }
  return next;
}

/** A dependency edit must not close a cycle (checked against the whole home). */
function assertNoCycle(item: WorkItem, ctx: Ctx): void {
  const all = loadAllWork(ctx.home()).items;
  const nodes: GraphNode[] = all.map((i) => ({ id: i.id, file: '', depends_on: i.id === item.id ? item.depends_on : i.depends_on, successors: [], superseded_by: null }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const cycle = cyclesThrough(nodes, byId).get(item.id);
  if (cycle) throw invalid(`${item.id}: depends_on would close a cycle: ${cycleText(cycle, item.id)}`, 'remove one of these dependencies instead');
}

/** The item's own budget; one that does not parse is replaced, not merged (`holon check` sends people here to fix it). */
function ownOrNone(item: WorkItem): Budget | null {
  try {
    return ownBudget(item);
  } catch (err) {
    if (err instanceof HolonError) return null;
    throw err;
  }
}

/**
 * Sets budget figures over the item's own (null clears them all); an item blocked by a spent budget
 * that the new one allows is reopened, so the raise is the whole recovery.
 */
function withBudget(home: Home, doc: WorkDoc, change: Budget | null, nowMs: number): WorkDoc {
  const { budget: _old, ...rest } = doc.item.extra;
  const merged = change === null ? null : { ...(ownOrNone(doc.item) ?? {}), ...change };
  let next: WorkDoc = { ...doc, item: { ...doc.item, extra: merged && Object.keys(merged).length ? { ...rest, budget: formatBudget(merged) } : rest } };
  if (next.item.status === 'blocked' && isBudgetBlocker(next.item.blocker)) {
    const v = itemBudgetState(home, next.item, nowMs).verdict;
    if (v.state !== 'exhausted') {
      next = appendHistory(next, { at: iso(nowMs), text: `budget raised to ${formatBudget(itemBudget(home, next.item).budget) || 'none'}: reopened (was blocked: ${doc.item.blocker!.reason})` });
      next = { ...next, item: { ...next.item, status: 'open', blocker: null } };
    }
  }
  return next;
}

/** `holon edit ID`: change graph fields and the title; validated before anything is written. */
export async function run(ctx: Ctx, args: string[], opts: EditOptions): Promise<void> {
  const ref = targetItem(ctx, args[0]);
  const home = ctx.home();
  const resolveId = (id: string) => {
    const r = locateWork(home, id, ref.agent).id;
    if (r === ref.id) throw invalid(`${ref.id} cannot depend on itself`, 'name another item');
    return r;
  };
  // Dropping a needed decision is deciding it: an agent run needs the same authority as for `decide`.
  for (const need of (opts.removeNeedsDecision as string[] | undefined) ?? []) assertAuthority(home, ctx.actor, need, 'drop the decision');
  const addsDeps = ((opts.addDependsOn as string[] | undefined) ?? []).length > 0;
  const budget = opts.budget === undefined ? undefined : clearing(opts.budget) ? null : parseBudget(opts.budget, '--budget', true);
  // An agent that could raise its own budget would have none: budgets are a person's to set.
  if (budget !== undefined && ctx.actor.startsWith('agent:')) throw invalid(`${ctx.actor} may not change the budget of ${ref.id}`, 'a person sets budgets (`holon edit --budget` outside an agent run); ask with `holon notify` or a user_action item');
  const r = await mutateWork(home, ref, ctx.nowMs, (doc) => {
    let item = applyEdits(doc.item, opts, resolveId);
    assertGraphFields(item, `holon edit ${ref.id}`);
    if (addsDeps) assertNoCycle(item, ctx);
    if (budget === undefined) return { ...doc, item };
    return withBudget(home, { ...doc, item }, budget, ctx.nowMs);
  });
  if (opts.json) return printJson({ ...workItemJson(viewOf(r.doc)), changed: r.changed });
  out(r.changed ? `${ref.id}  updated (revision ${r.doc.item.revision})` : `${ref.id}  nothing changed`);
}
