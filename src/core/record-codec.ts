import { yamlLib } from './yaml-lib.js';
import { parseHolonYaml } from './holon-yaml.js';
import { emitSimpleYaml } from './yaml-emit.js';

/**
 * Text <-> data for holon records (Markdown with YAML front matter, or plain YAML).
 *
 * We split the front matter ourselves instead of using gray-matter: a rewrite must keep the raw text
 * of keys holon does not know, byte for byte, and errors must carry file lines; both need the spans.
 */

/** A problem found while reading a record; `line` is 1-based in the file. */
export interface RecordProblem {
  file: string;
  line: number;
  message: string;
  fix: string;
}

export class RecordParseError extends Error {
  readonly problem: RecordProblem;
  constructor(problem: RecordProblem) {
    super(`${problem.file}:${problem.line}: ${problem.message}`);
    this.problem = problem;
  }
}

/** One top-level front matter entry and its raw text (key line, nested lines, comments above it). */
export interface RawEntry {
  key: string;
  /** Comment and blank lines written above the key. */
  lead: string;
  raw: string;
}

export interface ParsedRecord {
  data: Record<string, unknown>;
  entries: RawEntry[];
  /** Markdown after the closing `---` (empty for YAML records). */
  body: string;
}

const CONFLICT = /^(<{7}|={7}|>{7})(\s|$)/;

/** What a conflict at `line` is: the text after `<<<<<<< ours` (holon's merge says which field clashed). */
export function conflictMessage(text: string, line: number): string {
  const m = /^<{7}\s*(?:ours\s*)?\((holon merge: .*)\)\s*$/.exec(text.split('\n')[line - 1] ?? '');
  return m ? `git conflict marker (${m[1]})` : 'git conflict marker';
}

/** Finds git conflict markers; returns the 1-based line of the first, or 0. */
export function conflictLine(text: string): number {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) if (CONFLICT.test(lines[i])) return i + 1;
  return 0;
}

function yamlProblem(file: string, err: unknown, lineOffset: number, example: string): RecordProblem {
  if (err instanceof yamlLib().YAMLParseError) {
    const line = (err.linePos?.[0].line ?? 1) + lineOffset;
    return { file, line, message: `bad YAML: ${err.message.split('\n')[0]}`, fix: example };
  }
  return { file, line: 1 + lineOffset, message: `bad YAML: ${(err as Error).message}`, fix: example };
}

/** Splits YAML text into top-level entries, keeping comments and blank lines with the entry below them. */
export function splitEntries(yamlText: string): RawEntry[] {
  const lines = yamlText.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const entries: RawEntry[] = [];
  let pending: string[] = [];
  for (const line of lines) {
    const m = /^([A-Za-z_][\w.-]*|"[^"]+"|'[^']+')\s*:/.exec(line);
    if (m) {
      entries.push({ key: m[1].replace(/^["']|["']$/g, ''), lead: pending.map((l) => l + '\n').join(''), raw: [...pending, line].join('\n') });
      pending = [];
    } else if (entries.length && /^(\s|-)/.test(line) && line.trim() !== '') {
      entries[entries.length - 1].raw += '\n' + line;
    } else {
      pending.push(line);
    }
  }
  if (pending.length && entries.length) entries[entries.length - 1].raw += '\n' + pending.join('\n');
  return entries;
}

const FM_EXAMPLE = 'a record starts with front matter:\n---\nid: "w-4f2a9c1k"\ntitle: "Review PR #101"\nstatus: open\n---';

/** Parses a Markdown record with front matter. Throws RecordParseError with file and line. */
/** `example` is the fix shown for a malformed front matter (a WorkItem's by default). */
export function parseMarkdownRecord(text: string, file: string, example = FM_EXAMPLE): ParsedRecord {
  const cl = conflictLine(text);
  if (cl) {
    throw new RecordParseError({
      file,
      line: cl,
      message: conflictMessage(text, cl),
      fix: 'resolve the merge: keep one side of each <<<<<<< ======= >>>>>>> block, delete the markers, then run `holon check`',
    });
  }
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  if (!src.startsWith('---\n')) {
    throw new RecordParseError({ file, line: 1, message: 'missing front matter (the first line must be ---)', fix: example });
  }
  const close = src.indexOf('\n---', 3);
  let end = close;
  while (end !== -1 && !/^\n---[ \t]*(\n|$)/.test(src.slice(end, end + 6))) end = src.indexOf('\n---', end + 4);
  if (end === -1) {
    throw new RecordParseError({ file, line: 1, message: 'front matter is not closed (no second --- line)', fix: example });
  }
  const yamlText = src.slice(4, end + 1);
  const afterClose = src.indexOf('\n', end + 4);
  const body = afterClose === -1 ? '' : src.slice(afterClose + 1);
  const data = parseYamlMap(yamlText, file, 1, example);
  return { data, entries: splitEntries(yamlText), body };
}

/** Parses a plain YAML record (timers, events). */
export function parseYamlRecord(text: string, file: string, example = 'id: "t-4f2a9c1k"'): ParsedRecord {
  const cl = conflictLine(text);
  if (cl) {
    throw new RecordParseError({ file, line: cl, message: conflictMessage(text, cl), fix: 'resolve the merge: keep one side of each <<<<<<< ======= >>>>>>> block, delete the markers, then run `holon check`' });
  }
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  return { data: parseYamlMap(src, file, 0, example), entries: splitEntries(src), body: '' };
}

function parseYamlMap(yamlText: string, file: string, lineOffset: number, example: string): Record<string, unknown> {
  // holon's own subset (what it writes) without loading the library; anything else goes to the library.
  let data: unknown = parseHolonYaml(yamlText);
  if (data) return data as Record<string, unknown>;
  try {
    // YAML 1.2 core schema: timestamps stay strings, which is what we want.
    data = yamlLib().parse(yamlText, { uniqueKeys: true, prettyErrors: true });
  } catch (err) {
    throw new RecordParseError(yamlProblem(file, err, lineOffset, example));
  }
  if (data == null) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new RecordParseError({ file, line: 1 + lineOffset, message: 'front matter must be a map of key: value', fix: example });
  }
  return data as Record<string, unknown>;
}

/** Deterministic YAML for one value: strings always double-quoted, no line folding. */
export function yamlValue(value: unknown): string {
  const simple = emitSimpleYaml(value);
  if (simple !== null) return simple;
  return yamlLib().stringify(value, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0, indent: 2 }).replace(/\n$/, '');
}

function emitEntry(key: string, value: unknown): string {
  return yamlValue({ [key]: value });
}

/**
 * Serializes front matter: known keys in `order` (values in `data`, skipped when undefined), then every
 * other original entry verbatim, in its original order.
 */
export function serializeFrontMatter(data: Record<string, unknown>, order: readonly string[], original: RawEntry[]): string {
  const known = new Set(order);
  const out: string[] = [];
  const leads = new Map(original.map((e) => [e.key, e.lead]));
  for (const key of order) if (data[key] !== undefined) out.push((leads.get(key) ?? '') + emitEntry(key, data[key]));
  const seen = new Set<string>();
  for (const e of original) {
    if (known.has(e.key)) continue;
    seen.add(e.key);
    out.push(e.raw);
  }
  // Unknown keys added programmatically (not from the original text) go last, sorted.
  for (const key of Object.keys(data).filter((k) => !known.has(k) && !seen.has(k)).sort()) {
    if (data[key] !== undefined) out.push(emitEntry(key, data[key]));
  }
  return out.join('\n') + '\n';
}

export function serializeMarkdownRecord(frontMatter: string, body: string): string {
  return `---\n${frontMatter}---\n${body}`;
}
