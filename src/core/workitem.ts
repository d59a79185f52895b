import { appendToSection, formatEntry, readEntries, readSection, replaceSection, type LogEntry } from './body.js';
import { RecordParseError, serializeFrontMatter, serializeMarkdownRecord, type ParsedRecord, type RawEntry } from './record-codec.js';
import { validMaxAge } from './frontier-freshness.js';
import { CLASSES, PRIORITIES, STATUSES, type WorkItem } from './types.js';

/** The fixed front matter key order of a WorkItem file. */
export const WORK_KEYS = [
  'id', 'title', 'agent', 'status', 'class', 'action', 'role', 'priority', 'created_at', 'updated_at', 'revision',
  'depends_on', 'resume_when', 'requires', 'repo', 'branch', 'write_scope', 'workspace', 'freshness', 'needs_decision', 'decision_scope',
  'exclude', 'claim', 'waits', 'blocker', 'successors', 'superseded_by', 'supersedes', 'no_followup', 'delivery',
] as const;

/**
 * Front matter keys kept in `extra` (WorkItem has no field for them) that holon itself writes: issue 17's
 * budget (core/budget.ts) and where its spending starts counting, and `resume_since`, when `defer` set
 * the resume conditions (an `event:` condition counts only events admitted from then on). `extra` is
 * authoritative for them.
 */
const EXTRA_WRITTEN = ['budget', 'budget_since', 'resume_since'] as const;
const WRITTEN_KEYS: readonly string[] = [...WORK_KEYS, ...EXTRA_WRITTEN];

const KNOWN_KEYS: ReadonlySet<string> = new Set(WORK_KEYS);

const LIST_KEYS = ['depends_on', 'resume_when', 'requires', 'write_scope', 'needs_decision', 'exclude', 'successors', 'supersedes'] as const;

/** A WorkItem together with what is needed to rewrite its file faithfully. */
export interface WorkDoc {
  item: WorkItem;
  body: string;
  entries: RawEntry[];
}

const FIX = {
  status: `status is one of ${STATUSES.join(', ')}`,
  class: `class is one of ${CLASSES.join(', ')}`,
  priority: `priority is one of ${PRIORITIES.join(', ')} (or leave it out)`,
};

/** Line of a top-level key in the file (front matter starts on line 2). */
function keyLine(entries: RawEntry[], key: string): number {
  let line = 2;
  for (const e of entries) {
    const leadLines = e.lead ? e.lead.split('\n').length - 1 : 0;
    if (e.key === key) return line + leadLines;
    line += e.raw.split('\n').length;
  }
  return 1;
}

const asList = (v: unknown): string[] => (v == null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

/** Builds a WorkItem from a parsed record; throws RecordParseError naming the field and its line. */
export function workFromRecord(rec: ParsedRecord, file: string, fileId?: string): WorkDoc {
  const d = rec.data;
  const fail = (key: string, message: string, fix: string): never => {
    throw new RecordParseError({ file, line: keyLine(rec.entries, key), message, fix });
  };
  for (const key of ['id', 'title', 'status'] as const) {
    if (d[key] == null || d[key] === '') fail(key, `missing required field "${key}"`, `add a line like ${key}: ${key === 'status' ? 'open' : key === 'id' ? `"${fileId ?? 'w-4f2a9c1k'}"` : '"Review PR #101"'}`);
  }
  const id = String(d.id);
  if (fileId && id !== fileId) fail('id', `id "${id}" does not match the file name "${fileId}.md"`, `set id: "${fileId}" or rename the file to ${id}.md`);
  if (!STATUSES.includes(d.status as never)) fail('status', `unknown status "${String(d.status)}"`, FIX.status);
  if (d.class != null && !CLASSES.includes(d.class as never)) fail('class', `unknown class "${String(d.class)}"`, FIX.class);
  if (d.priority != null && !PRIORITIES.includes(d.priority as never)) fail('priority', `unknown priority "${String(d.priority)}"`, FIX.priority);
  if (d.revision != null && !Number.isInteger(Number(d.revision))) fail('revision', 'revision must be a whole number', 'revision: 1');
  for (const key of LIST_KEYS) {
    if (d[key] != null && !Array.isArray(d[key]) && typeof d[key] !== 'string') fail(key, `${key} must be a list`, `${key}: ["..."]`);
  }
  if (d.waits != null && !Array.isArray(d.waits)) fail('waits', 'waits must be a list', 'waits: []');
  if (d.role != null && (typeof d.role === 'object' || String(d.role).trim() === '')) fail('role', 'role must be a word or a short phrase', 'role: reviewer');
  const ws = d.workspace as Record<string, unknown> | null | undefined;
  if (ws != null && (typeof ws !== 'object' || Array.isArray(ws) || (ws.require_worktree != null && typeof ws.require_worktree !== 'boolean'))) {
    fail('workspace', 'workspace must be a mapping like {require_worktree: true}', 'workspace: {require_worktree: true}');
  }
  const fr = d.freshness as Record<string, unknown> | null | undefined;
  if (fr != null && (typeof fr !== 'object' || Array.isArray(fr) || (fr.max_age != null && !validMaxAge(String(fr.max_age))))) {
    fail('freshness', 'freshness must be a mapping like {max_age: 7d} (a duration, or off)', 'freshness: {max_age: 7d}');
  }
  const extra: Record<string, unknown> = {};
  for (const k in d) if (!KNOWN_KEYS.has(k)) extra[k] = d[k];
  const item: WorkItem = {
    id,
    title: String(d.title),
    agent: d.agent == null ? '' : String(d.agent),
    status: d.status as WorkItem['status'],
    class: (d.class as WorkItem['class']) ?? 'advancement_task',
    action: d.action == null ? null : String(d.action),
    role: d.role == null ? null : String(d.role).trim(),
    priority: (d.priority as WorkItem['priority']) ?? null,
    created_at: d.created_at == null ? '' : String(d.created_at),
    updated_at: d.updated_at == null ? '' : String(d.updated_at),
    revision: d.revision == null ? 0 : Number(d.revision),
    depends_on: asList(d.depends_on),
    resume_when: asList(d.resume_when),
    requires: asList(d.requires),
    repo: d.repo == null ? null : String(d.repo),
    branch: d.branch == null ? null : String(d.branch),
    write_scope: asList(d.write_scope),
    workspace: (ws as WorkItem['workspace']) ?? null,
    freshness: fr ? { ...fr, ...(fr.max_age != null ? { max_age: String(fr.max_age) } : {}) } : null,
    needs_decision: asList(d.needs_decision),
    decision_scope: (d.decision_scope as WorkItem['decision_scope']) ?? null,
    exclude: asList(d.exclude),
    claim: (d.claim as WorkItem['claim']) ?? null,
    waits: (d.waits as WorkItem['waits']) ?? [],
    blocker: (d.blocker as WorkItem['blocker']) ?? null,
    successors: asList(d.successors),
    superseded_by: d.superseded_by == null ? null : String(d.superseded_by),
    supersedes: asList(d.supersedes),
    no_followup: d.no_followup == null ? null : String(d.no_followup),
    delivery: (d.delivery as WorkItem['delivery']) ?? null,
    extra,
  };
  return { item, body: rec.body, entries: rec.entries };
}

/** Front matter values: empty lists and nulls are left out so files stay short and diffs small. */
function frontMatterData(item: WorkItem): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const key of WORK_KEYS) {
    const v = item[key];
    if (v == null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (v === '') continue;
    data[key] = v;
  }
  for (const key of EXTRA_WRITTEN) if (item.extra[key] != null) data[key] = item.extra[key];
  return data;
}

/** Serializes a WorkDoc: known keys in fixed order, unknown keys and body text as they were. */
export function serializeWork(doc: WorkDoc): string {
  return serializeMarkdownRecord(serializeFrontMatter(frontMatterData(doc.item), WRITTEN_KEYS, doc.entries), doc.body);
}

/** The body of a new WorkItem. */
export function newBody(objective: string, acceptance?: string[]): string {
  let body = `\n## Objective\n\n${objective.trim()}\n`;
  if (acceptance?.length) body += `\n## Acceptance\n\n${acceptance.map((a) => `- ${a}`).join('\n')}\n`;
  body += '\n## Progress\n\n## Evidence\n\n## On return\n';
  return body;
}

/** Body-derived views, for --json and resume. */
export interface WorkView extends WorkItem {
  objective: string;
  acceptance: string[];
  progress: LogEntry[];
  evidence: LogEntry[];
  on_return: string;
  progress_count: number;
  evidence_count: number;
  last_progress: LogEntry | null;
}

/** What listings carry per item (and what the index cache keeps): the same view as everywhere else. */
export type WorkSummary = WorkView;

export function viewOf(doc: WorkDoc): WorkView {
  const progress = readEntries(doc.body, 'Progress');
  const evidence = readEntries(doc.body, 'Evidence');
  return {
    ...doc.item,
    objective: readSection(doc.body, 'Objective') ?? '',
    acceptance: readEntries(doc.body, 'Acceptance').map((e) => e.text),
    progress,
    evidence,
    on_return: readSection(doc.body, 'On return') ?? '',
    progress_count: progress.length,
    evidence_count: evidence.length,
    last_progress: progress.at(-1) ?? null,
  };
}

export const summaryOf = viewOf;

/** The key order of a WorkItem in every --json output (schemas/work-item.json): front matter, then the body's views. */
export const WORK_JSON_KEYS = [
  ...WORK_KEYS, 'extra', 'objective', 'acceptance', 'progress', 'evidence', 'on_return', 'progress_count', 'evidence_count', 'last_progress',
] as const;

/** A WorkItem as --json prints it: the same keys in the same order wherever it appears. */
export function workItemJson(v: WorkView): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of WORK_JSON_KEYS) out[k] = (v as unknown as Record<string, unknown>)[k];
  return out;
}

export function addProgress(doc: WorkDoc, entry: LogEntry): WorkDoc {
  return { ...doc, body: appendToSection(doc.body, 'Progress', formatEntry(entry)) };
}

export function addEvidence(doc: WorkDoc, entry: LogEntry): WorkDoc {
  return { ...doc, body: appendToSection(doc.body, 'Evidence', formatEntry(entry)) };
}

export function setOnReturn(doc: WorkDoc, text: string): WorkDoc {
  return { ...doc, body: replaceSection(doc.body, 'On return', text) };
}

export function appendHistory(doc: WorkDoc, entry: LogEntry): WorkDoc {
  return { ...doc, body: appendToSection(doc.body, 'History', formatEntry(entry)) };
}
