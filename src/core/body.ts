/**
 * The Markdown body of a WorkItem as `## Heading` sections. Edits touch only the section they change,
 * so text people wrote anywhere else stays byte for byte.
 */

/** Canonical section order; sections holon adds are placed by it. */
export const SECTIONS = ['Objective', 'Acceptance', 'Progress', 'Evidence', 'On return', 'Delivery', 'History'] as const;
export type SectionName = (typeof SECTIONS)[number];

interface Span {
  name: string;
  /** Index of the heading line's first char. */
  start: number;
  /** Index just after the heading line. */
  contentStart: number;
  /** Index where the next section starts (or body end). */
  end: number;
}

function spans(body: string): Span[] {
  const out: Span[] = [];
  const re = /^## +(.+?)[ \t]*$/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(body))) {
    const lineEnd = body.indexOf('\n', m.index);
    const contentStart = lineEnd === -1 ? body.length : lineEnd + 1;
    if (out.length) out[out.length - 1].end = m.index;
    out.push({ name: m[1], start: m.index, contentStart, end: body.length });
  }
  return out;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The text of a section without its heading, trimmed; undefined when absent. */
export function readSection(body: string, name: string): string | undefined {
  const s = spans(body).find((x) => same(x.name, name));
  return s ? body.slice(s.contentStart, s.end).trim() : undefined;
}

/** Where a missing section goes: before the first later canonical section present, else at the end. */
function insertionPoint(body: string, name: string): number {
  const rank = SECTIONS.findIndex((x) => same(x, name));
  const all = spans(body);
  if (rank >= 0) {
    for (const s of all) {
      const r = SECTIONS.findIndex((x) => same(x, s.name));
      if (r > rank) return s.start;
    }
  }
  return body.length;
}

function ensureTrailingBlank(text: string): string {
  if (text === '') return '';
  return text.endsWith('\n\n') ? text : text.endsWith('\n') ? text + '\n' : text + '\n\n';
}

/** Appends lines at the end of a section (after its last non-blank line), creating it if needed. */
export function appendToSection(body: string, name: string, text: string): string {
  const s = spans(body).find((x) => same(x.name, name));
  const addition = text.endsWith('\n') ? text : text + '\n';
  if (!s) return insertSection(body, name, addition);
  const content = body.slice(s.contentStart, s.end);
  const trimmedLen = content.replace(/\s+$/, '').length;
  if (trimmedLen === 0) {
    const tail = s.end < body.length ? '\n' : '';
    return body.slice(0, s.contentStart) + '\n' + addition + tail + body.slice(s.end);
  }
  const at = s.contentStart + trimmedLen;
  const rest = body.slice(at);
  const nl = rest.startsWith('\n') ? '' : '\n';
  return body.slice(0, at) + '\n' + addition.replace(/\n$/, '') + nl + rest;
}

/** Replaces a section's content (keeps its heading), creating it if needed. */
export function replaceSection(body: string, name: string, text: string): string {
  const s = spans(body).find((x) => same(x.name, name));
  const content = text.trim() === '' ? '' : '\n' + text.replace(/\s+$/, '') + '\n';
  if (!s) return insertSection(body, name, text.replace(/\s+$/, '') + '\n');
  const tail = s.end < body.length ? '\n' : '';
  return body.slice(0, s.contentStart) + content + tail + body.slice(s.end);
}

function insertSection(body: string, name: string, content: string): string {
  const at = insertionPoint(body, name);
  const before = ensureTrailingBlank(body.slice(0, at));
  const after = body.slice(at);
  const block = `## ${name}\n\n${content}`;
  return before + block + (after ? '\n' + after : '');
}

/** A list entry in Progress or Evidence. */
export interface LogEntry {
  at: string | null;
  text: string;
  commit?: string;
  run?: string;
}

const ENTRY = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)\s+(?:\[(commit|run) ([^\]\s]+)(?: (commit|run) ([^\]\s]+))?\]\s+)?([\s\S]*)$/;

/** Reads `- ` list entries of a section; continuation lines (indented) join the entry. */
export function readEntries(body: string, name: string): LogEntry[] {
  const text = readSection(body, name);
  if (!text) return [];
  const items: string[] = [];
  for (const line of text.split('\n')) {
    if (/^[-*] /.test(line)) items.push(line.slice(2));
    else if (items.length && /^\s+\S/.test(line)) items[items.length - 1] += '\n' + line.trim();
  }
  return items.map((raw) => {
    const m = ENTRY.exec(raw);
    if (!m) return { at: null, text: raw.trim() };
    const entry: LogEntry = { at: m[1], text: m[6].trim() };
    if (m[2]) entry[m[2] as 'commit' | 'run'] = m[3];
    if (m[4]) entry[m[4] as 'commit' | 'run'] = m[5];
    return entry;
  });
}

/** Formats one entry as a Markdown list item; extra lines are indented so they stay in the item. */
export function formatEntry(e: LogEntry): string {
  const refs = [e.commit ? `commit ${e.commit}` : '', e.run ? `run ${e.run}` : ''].filter(Boolean).join(' ');
  const lines = e.text.trim().split('\n');
  const head = `- ${e.at ?? ''}${e.at ? ' ' : ''}${refs ? `[${refs}] ` : ''}${lines[0]}`;
  return [head, ...lines.slice(1).map((l) => `  ${l}`)].join('\n');
}

/**
 * What the freshness check reads from a body: when the newest evidence was recorded, and the commits
 * the newest evidence and the newest progress naming one were observed on. Null when the body records
 * none of these (most items), so caches stay small.
 */
export function observedOf(body: string): { evidence_at: string | null; evidence_commit: string | null; progress_commit: string | null } | null {
  // Only an entry that starts with its time can carry a time or a commit (ENTRY): without one there
  // is nothing to find, and most bodies (fresh items, plain notes) are skipped with one search.
  if (!body || !/^[ \t]*[-*] \d{4}-\d\d-\d\dT/m.test(body)) return null;
  const evidence = /^## +Evidence/im.test(body) ? readEntries(body, 'Evidence') : [];
  const progress = /\[commit /.test(body) ? readEntries(body, 'Progress') : [];
  let evidence_at: string | null = null;
  for (const e of evidence) if (e.at && (!evidence_at || e.at > evidence_at)) evidence_at = e.at;
  const lastCommit = (list: LogEntry[]) => {
    for (let i = list.length - 1; i >= 0; i--) if (list[i].commit) return list[i].commit!;
    return null;
  };
  const evidence_commit = lastCommit(evidence);
  const progress_commit = lastCommit(progress);
  return evidence_at || evidence_commit || progress_commit ? { evidence_at, evidence_commit, progress_commit } : null;
}
