import { invalid } from '../../core/errors.js';
import { iso } from '../../core/time.js';
import { CLASSES, PRIORITIES, type TaskClass, type Priority, type WorkItem } from '../../core/types.js';
import { newBody, viewOf, workItemJson, type WorkDoc } from '../../core/workitem.js';
import { writeFocus } from '../../store/focus.js';
import { createWork, locateWork, newWorkId } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { assertGraphFields } from '../graph-options.js';
import { out, printJson } from '../output.js';

export interface NewOptions {
  title?: string;
  class?: string;
  action?: string;
  priority?: string;
  dependsOn?: string[];
  accept?: string[];
  pick?: boolean;
  json?: boolean;
  requires?: string[];
  repo?: string;
  branch?: string;
  writeScope?: string[];
  needsDecision?: string[];
  decisionScope?: string;
  exclude?: string[];
  resumeWhen?: string[];
}

/** A blank WorkItem with defaults; other commands (issues, demo) build on it. */
export function blankItem(id: string, agent: string, title: string, nowMs: number): WorkItem {
  const t = iso(nowMs);
  return {
    id, title, agent, status: 'open', class: 'advancement_task', action: null, priority: null,
    created_at: t, updated_at: t, revision: 1, depends_on: [], resume_when: [], requires: [], repo: null,
    branch: null, write_scope: [], needs_decision: [], decision_scope: null, exclude: [], claim: null,
    waits: [], blocker: null, successors: [], superseded_by: null, supersedes: [], no_followup: null, delivery: null, extra: {},
  };
}

export async function run(ctx: Ctx, args: string[], opts: NewOptions): Promise<void> {
  const objective = args.join(' ').trim();
  if (!objective) throw invalid('the objective is empty', 'say what must be delivered: holon new "Review PR #101 and deliver a conclusion"');
  if (opts.class && !CLASSES.includes(opts.class as TaskClass)) throw invalid(`unknown class "${opts.class}"`, `use one of ${CLASSES.join(', ')}`);
  const priority = opts.priority?.toUpperCase();
  if (priority && !PRIORITIES.includes(priority as Priority)) throw invalid(`unknown priority "${opts.priority}"`, 'use P0 (highest) .. P4');
  const home = ctx.home();
  const agent = ctx.agent();
  const deps = (opts.dependsOn ?? []).map((d) => locateWork(home, d, agent).id);
  const title = (opts.title ?? objective.split('\n')[0]).trim().slice(0, 120);
  const item: WorkItem = {
    ...blankItem(newWorkId(), agent, title, ctx.nowMs),
    class: (opts.class as TaskClass) ?? 'advancement_task',
    action: opts.action ?? null,
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
  };
  assertGraphFields(item, 'holon new');
  const doc: WorkDoc = { item, body: newBody(objective, opts.accept), entries: [] };
  const ref = await createWork(home, doc);
  if (opts.pick) await writeFocus(home, agent, item.id, ctx.nowMs);
  if (opts.json) return printJson({ ...workItemJson(viewOf(doc)), file: ref.file, focus: Boolean(opts.pick) });
  out(item.id);
  if (process.stdout.isTTY) process.stderr.write(`created ${item.id} "${title}" for ${agent}${opts.pick ? ' (now the focus)' : ''}\n`);
}
