import { parseScope, SCOPE_FIX } from './decision-scope.js';
import { withArticle } from './ids.js';
import type { DecisionScope, WorkItem } from './types.js';
import { scopeProblem } from './write-scope.js';

/**
 * Validation of the work-graph fields of one WorkItem: used on every write (`new`, `edit`) and by
 * `holon check`. Each problem names its field so callers can point at the line.
 */

export interface FieldProblem {
  field: string;
  message: string;
  fix: string;
}

export type ResumeCondition =
  | { kind: 'at'; ms: number; text: string }
  | { kind: 'done'; id: string; text: string }
  | { kind: 'event'; resource: string; text: string }
  | { kind: 'capability'; name: string; text: string };

export const RESUME_FIX = 'use at:2026-12-01T09:00:00Z, done:w-4f2a9c1k, event:github:acme/app#101 or capability:gpu';

const NAME = /^[A-Za-z0-9][\w.-]*$/;
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** Parses one resume_when entry; returns an error sentence when it is not one of the four forms. */
export function parseResumeCondition(text: string): ResumeCondition | { error: string } {
  const s = String(text ?? '').trim();
  const i = s.indexOf(':');
  const kind = i === -1 ? s : s.slice(0, i);
  const rest = i === -1 ? '' : s.slice(i + 1).trim();
  if (kind === 'at') {
    const ms = ISO.test(rest) ? Date.parse(rest) : NaN;
    return Number.isNaN(ms) ? { error: `resume_when "${s}": "${rest}" is not an ISO-8601 time` } : { kind, ms, text: s };
  }
  if (kind === 'done') return NAME.test(rest) ? { kind, id: rest, text: s } : { error: `resume_when "${s}" needs a WorkItem id` };
  if (kind === 'event') return rest ? { kind, resource: rest, text: s } : { error: `resume_when "${s}" needs a resource` };
  if (kind === 'capability') return NAME.test(rest) ? { kind, name: rest, text: s } : { error: `resume_when "${s}" needs a capability name` };
  return { error: `resume_when "${s}" is not a known condition` };
}

/** decision_scope as written: a map with `scope`, or (by hand) just the scope string. */
export function normalizeDecisionScope(v: unknown): DecisionScope | null {
  if (v == null || v === '') return null;
  if (typeof v === 'string') return { scope: v };
  if (typeof v === 'object' && !Array.isArray(v)) return v as DecisionScope;
  return { scope: String(v) };
}

export function graphFieldProblems(item: WorkItem): FieldProblem[] {
  const out: FieldProblem[] = [];
  const add = (field: string, message: string, fix: string) => out.push({ field, message, fix });
  for (const r of item.requires) if (!NAME.test(r)) add('requires', `requires "${r}" is not a capability name`, 'capability names are letters, digits, _ . - (e.g. shell, network, gpu)');
  for (const c of item.resume_when) {
    const p = parseResumeCondition(c);
    if ('error' in p) add('resume_when', p.error, RESUME_FIX);
  }
  for (const n of item.needs_decision) {
    const p = parseScope(n);
    if ('error' in p) add('needs_decision', p.error, SCOPE_FIX);
  }
  const ds = normalizeDecisionScope(item.decision_scope);
  if (ds) {
    const p = parseScope(ds.scope);
    if ('error' in p) add('decision_scope', p.error, SCOPE_FIX);
    if (ds.decision != null && ds.decision !== 'approved' && ds.decision !== 'rejected') {
      add('decision_scope', `decision "${String(ds.decision)}" is not approved or rejected`, 'leave decision out until `holon decide` records it');
    }
    if (item.class !== 'user_gate') {
      add('decision_scope', `decision_scope on ${withArticle(item.class)} covers nothing: only a user_gate can satisfy a decision${item.class === 'user_action' ? ' (a user_action never does)' : ''}`, 'set class: user_gate, or move the scope to needs_decision if this item needs the decision');
    }
  } else if (item.class === 'user_gate') {
    add('decision_scope', 'a user_gate without decision_scope covers no decision', `add decision_scope, e.g. holon edit ${item.id} --decision-scope api_change:action:export`);
  }
  for (const g of item.write_scope) {
    const p = scopeProblem(g);
    if (p) add('write_scope', p, 'write globs relative to the repository root, e.g. src/api/** or docs/*.md');
  }
  for (const x of item.exclude) if (!NAME.test(x.replace(/^(agent|role):/, ''))) add('exclude', `exclude "${x}" is not an agent name or role:ROLE`, 'list agent names or roles, e.g. exclude: ["author", "role:implementer"]');
  if (item.depends_on.includes(item.id)) add('depends_on', `${item.id} depends on itself`, 'remove its own id from depends_on');
  if (item.branch != null && /\s/.test(item.branch)) add('branch', `branch "${item.branch}" contains spaces`, 'use the branch name as git shows it');
  const c = item.claim as unknown as Record<string, unknown> | null;
  if (c != null) {
    if (typeof c !== 'object' || !c.holder) add('claim', 'claim has no holder', 'let `holon claim` write it, or remove the claim');
    else {
      if (!Number.isInteger(Number(c.version ?? 0))) add('claim', 'claim.version must be a whole number', 'version: 1');
      if (c.expires_at != null && !ISO.test(String(c.expires_at))) add('claim', `claim.expires_at "${String(c.expires_at)}" is not an ISO-8601 time`, 'expires_at: "2026-11-30T06:00:00Z"');
    }
  }
  return out;
}
