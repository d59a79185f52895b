import { invalid } from '../core/errors.js';
import { formatBudget, parseBudget } from '../core/budget.js';
import { validMaxAge } from '../core/frontier-freshness.js';
import { iso } from '../core/time.js';
import { CLASSES, PRIORITIES, type Priority, type TaskClass, type WorkItem } from '../core/types.js';
import { newBody, type WorkDoc } from '../core/workitem.js';
import { writeFocus } from '../store/focus.js';
import { createWork, locateWork, newWorkId, type WorkRef } from '../store/work-store.js';
import type { OpsCtx } from './context.js';
import { assertGraphFields } from './graph-fields.js';

export interface NewOptions {
  objective: string;
  title?: string;
  class?: string;
  action?: string;
  role?: string;
  priority?: string;
  dependsOn?: string[];
  accept?: string[];
  pick?: boolean;
  requires?: string[];
  repo?: string;
  branch?: string;
  writeScope?: string[];
  needsDecision?: string[];
  decisionScope?: string;
  exclude?: string[];
  resumeWhen?: string[];
  /** `tokens=2M,cost=5usd,...` (core/budget.ts); stored as the front matter `budget:`. */
  budget?: string;
  requireWorktree?: boolean;
  maxAge?: string;
}

/** A blank WorkItem with defaults; other commands (issues, demo) build on it. */
export function blankItem(id: string, agent: string, title: string, nowMs: number): WorkItem {
  const t = iso(nowMs);
  return {
    id, title, agent, status: 'open', class: 'advancement_task', action: null, role: null, priority: null,
    created_at: t, updated_at: t, revision: 1, depends_on: [], resume_when: [], requires: [], repo: null,
    branch: null, write_scope: [], workspace: null, freshness: null, needs_decision: [], decision_scope: null, exclude: [], claim: null,
    waits: [], blocker: null, successors: [], superseded_by: null, supersedes: [], no_followup: null, delivery: null, extra: {},
  };
}

/** Creates a WorkItem for the acting agent (and focuses it with `pick`). */
export async function newItem(ctx: OpsCtx, opts: NewOptions): Promise<{ doc: WorkDoc; ref: WorkRef; agent: string; focus: boolean }> {
  const objective = opts.objective.trim();
  if (!objective) throw invalid('the objective is empty', 'say what must be delivered: holon new "Review PR #101 and deliver a conclusion"');
  if (opts.class && !CLASSES.includes(opts.class as TaskClass)) throw invalid(`unknown class "${opts.class}"`, `use one of ${CLASSES.join(', ')}`);
  const priority = opts.priority?.toUpperCase();
  if (priority && !PRIORITIES.includes(priority as Priority)) throw invalid(`unknown priority "${opts.priority}"`, 'use P0 (highest) .. P4');
  if (opts.maxAge && !validMaxAge(opts.maxAge)) throw invalid(`--max-age "${opts.maxAge}" is not a duration`, 'use e.g. 7d, 36h, or off');
  if (opts.role !== undefined && !opts.role.trim()) throw invalid('--role is empty', 'name the role it serves, e.g. --role reviewer');
  const home = ctx.home();
  const agent = ctx.agent();
  const deps = (opts.dependsOn ?? []).map((d) => locateWork(home, d, agent).id);
  const title = (opts.title ?? objective.split('\n')[0]).trim().slice(0, 120);
  const item: WorkItem = {
    ...blankItem(newWorkId(), agent, title, ctx.nowMs),
    class: (opts.class as TaskClass) ?? 'advancement_task',
    action: opts.action ?? null,
    role: opts.role?.trim() || null,
    priority: (priority as Priority) ?? null,
    depends_on: deps,
    requires: opts.requires ?? [],
    repo: opts.repo || null,
    branch: opts.branch || null,
    write_scope: opts.writeScope ?? [],
    needs_decision: opts.needsDecision ?? [],
    decision_scope: opts.decisionScope ? { scope: opts.decisionScope } : null,
    exclude: opts.exclude ?? [],
    resume_when: opts.resumeWhen ?? [],
    extra: {
      ...(opts.budget === undefined ? {} : { budget: formatBudget(parseBudget(opts.budget, '--budget', true)) }),
      // Its event conditions count events from its creation on, as a defer's do from the defer (core/transitions.ts).
      ...(opts.resumeWhen?.some((c) => c.startsWith('event:')) ? { resume_since: iso(ctx.nowMs) } : {}),
    },
    workspace: opts.requireWorktree ? { require_worktree: true } : null,
    freshness: opts.maxAge ? { max_age: opts.maxAge } : null,
  };
  assertGraphFields(item, 'holon new');
  const doc: WorkDoc = { item, body: newBody(objective, opts.accept), entries: [] };
  const ref = await createWork(home, doc);
  if (opts.pick) await writeFocus(home, agent, item.id, ctx.nowMs);
  return { doc, ref, agent, focus: Boolean(opts.pick) };
}
