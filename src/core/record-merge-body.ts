import { conflictOpen, CONFLICT_CLOSE } from './merge-values.js';
import { mergeText } from './text-merge.js';

/**
 * The Markdown body of a WorkItem, merged section by section. The log sections holon appends to
 * (Progress, Evidence, History) are united entry by entry in time order; every other section, and the
 * text before the first heading, merges like text.
 */

export const LOG_SECTIONS = ['progress', 'evidence', 'history'];

interface Section {
  key: string;
  /** The heading line through the line before the next heading. */
  text: string;
}

function splitBody(body: string): { preamble: string; sections: Section[] } {
  const re = /^## +(.+?)[ \t]*$/gm;
  const starts: Array<{ at: number; name: string }> = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(body))) starts.push({ at: m.index, name: m[1] });
  // Trailing blank lines are layout (a section gains one when another is added after it), not content.
  const sections = starts.map((s, i) => ({ key: s.name.toLowerCase(), text: body.slice(s.at, starts[i + 1]?.at ?? body.length).replace(/\s+$/, '') + '\n' }));
  return { preamble: body.slice(0, starts[0]?.at ?? body.length), sections };
}

const TS = /^[-*] (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)/;

/** A log section as its heading, its entries (a `- ` line with its indented continuation) and its tail. */
function parseLog(text: string): { head: string; entries: string[]; tail: string } | null {
  const lines = text.split('\n');
  const head = lines[0];
  const entries: string[] = [];
  let lastContent = 0;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i];
    if (/^[-*] /.test(l)) entries.push(l);
    else if (/^\s+\S/.test(l) && entries.length) entries[entries.length - 1] += '\n' + l;
    else if (l.trim() !== '') return null;
    else continue;
    lastContent = i;
  }
  // What follows the last entry (blank lines before the next heading) is kept as it was.
  const tail = entries.length ? lines.slice(lastContent + 1).join('\n') : lines.slice(1).join('\n');
  return { head, entries, tail };
}

/** Entries of both sides without duplicates, minus those a side deleted, in time order. */
function unite(base: string[], ours: string[], theirs: string[]): string[] {
  const o = new Set(ours);
  const t = new Set(theirs);
  const removed = new Set(base.filter((e) => !o.has(e) || !t.has(e)));
  const all: string[] = [];
  const seen = new Set<string>();
  for (const e of [...ours, ...theirs]) {
    if (seen.has(e) || removed.has(e)) continue;
    seen.add(e);
    all.push(e);
  }
  // An entry without a timestamp sorts with the entry before it in its own list.
  const at = new Map<string, string>();
  for (const list of [ours, theirs]) {
    let last = '';
    for (const e of list) {
      last = TS.exec(e)?.[1] ?? last;
      if (!at.has(e)) at.set(e, last);
    }
  }
  return all.map((e, i) => ({ e, i, at: at.get(e) ?? '' })).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.i - b.i)).map((x) => x.e);
}

function mergeLog(base: string | undefined, ours: string, theirs: string): { text: string; conflict: boolean } | null {
  const o = parseLog(ours);
  const t = parseLog(theirs);
  const b = base === undefined ? { head: o?.head ?? '', entries: [], tail: '' } : parseLog(base);
  if (!o || !t || !b) return null;
  const entries = unite(b.entries, o.entries, t.entries);
  const tail = o.tail === b.tail ? t.tail : o.tail;
  const lead = entries.length ? '\n' : '';
  return { text: `${o.head}\n${lead}${entries.join('\n')}${entries.length ? '\n' : ''}${tail}`, conflict: false };
}

function mergeSection(key: string, base: string | undefined, ours: string, theirs: string): { text: string; conflict: boolean } {
  if (LOG_SECTIONS.includes(key)) {
    const r = mergeLog(base, ours, theirs);
    if (r) return r;
  }
  const name = ours.split('\n')[0].replace(/^## +/, '').trim();
  const r = mergeText(base ?? '', ours, theirs, { ours: conflictOpen(`section "${name}" changed on both sides`).slice(8), theirs: CONFLICT_CLOSE.slice(8) });
  return r;
}

/** Merges two bodies against their base; `conflict` is true when a conflict block was written. */
export function mergeBody(base: string, ours: string, theirs: string): { text: string; conflict: boolean } {
  if (ours === theirs) return { text: ours, conflict: false };
  if (base === ours) return { text: theirs, conflict: false };
  if (base === theirs) return { text: ours, conflict: false };
  const B = splitBody(base);
  const O = splitBody(ours);
  const T = splitBody(theirs);
  const pre = mergeText(B.preamble, O.preamble, T.preamble);
  let conflict = pre.conflict;
  const bMap = new Map(B.sections.map((s) => [s.key, s.text]));
  const tMap = new Map(T.sections.map((s) => [s.key, s.text]));
  const oMap = new Map(O.sections.map((s) => [s.key, s.text]));
  // Section order: ours, with theirs' new sections placed after the section they follow in theirs.
  const order = O.sections.map((s) => s.key);
  T.sections.forEach((s, i) => {
    if (order.includes(s.key)) return;
    const prev = T.sections.slice(0, i).reverse().find((p) => order.includes(p.key));
    order.splice(prev ? order.indexOf(prev.key) + 1 : 0, 0, s.key);
  });
  const parts: string[] = [];
  for (const key of order) {
    const b = bMap.get(key);
    const o = oMap.get(key);
    const t = tMap.get(key);
    if (o !== undefined && t !== undefined) {
      const r = mergeSection(key, b, o, t);
      conflict ||= r.conflict;
      parts.push(r.text);
      continue;
    }
    // On one side only: new there (keep it), or deleted on the other (drop it unless changed since).
    const only = (o ?? t)!;
    if (b !== undefined && b === only) continue;
    parts.push(only);
  }
  const out = pre.text + parts.join('\n');
  return { text: out.endsWith('\n') || out === '' ? out : out + '\n', conflict };
}
