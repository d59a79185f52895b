/**
 * A parser for the YAML subset holon itself writes (record-codec's yamlValue) and its templates hold:
 * double-quoted strings, plain numbers, plain words, null, true/false, [] and {}, flow lists of
 * double-quoted strings, block maps and block lists indented by two spaces, blank lines and whole-line
 * comments. It returns null for anything else (trailing comments, other plain scalars, anchors, other
 * flow collections, tabs...), and the caller then uses the yaml library. Reading holon's own records
 * (and holon.yaml, AGENTS.md) this way skips loading that library, which costs more than everything
 * else a frontier recomputation does for one changed file.
 */

const FAIL = Symbol('fail');
type Out = unknown | typeof FAIL;

const KEY = /^([A-Za-z_][\w.-]*):(?: (.*))?$/;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

const WORD = /^[A-Za-z_][\w-]*$/;
const CORE_WORDS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** A double-quoted string with nothing to unescape: most values holon writes (ids, times, titles). */
const PLAIN_QUOTED = /^"[^"\\\x00-\x1f]*"$/;

function scalar(s: string): Out {
  if (s.startsWith('"')) {
    if (PLAIN_QUOTED.test(s)) return s.slice(1, -1);
    if (s.length < 2 || !s.endsWith('"')) return FAIL;
    try {
      const v = JSON.parse(s);
      return typeof v === 'string' ? v : FAIL;
    } catch {
      return FAIL;
    }
  }
  if (s === 'null') return null;
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (s === '[]') return [];
  if (s.startsWith('["') && s.endsWith('"]')) return quotedList(s);
  if (s === '{}') return {};
  if (NUMBER.test(s)) return Number(s);
  // A plain word (`preset: command`, a hand-written `status: open`) is a string in YAML 1.2's core
  // schema, which the yaml library follows, unless it is one of these.
  if (WORD.test(s) && !CORE_WORDS.has(s)) return s;
  return FAIL;
}

/**
 * A flow list of double-quoted strings, `["a", "b"]` (AGENTS.md as `holon init` writes it). Such a
 * list is JSON too, and JSON's escapes mean the same in YAML's double quotes; anything else in it
 * (numbers, maps, a trailing comma) is left to the yaml library.
 */
function quotedList(s: string): Out {
  try {
    const v: unknown = JSON.parse(s);
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : FAIL;
  } catch {
    return FAIL;
  }
}

export function parseHolonYaml(src: string): Record<string, unknown> | null {
  // Tabs are left to the yaml library.
  if (src.includes('\t')) return null;
  const raw = src.split('\n');
  if (raw[raw.length - 1] === '') raw.pop();
  // Each line as its indent and its text after the indent, in two arrays (a cold frontier parses
  // every record's front matter, so this loop runs for every line of a home). Blank lines and whole-
  // line comments are dropped: outside block scalars and multi-line strings, which this subset never
  // accepts, they carry nothing in YAML (holon.yaml as `holon init` writes it has both).
  const indents: number[] = new Array(raw.length);
  const texts: string[] = new Array(raw.length);
  let count = 0;
  for (let k = 0; k < raw.length; k++) {
    const l = raw[k];
    let n = 0;
    while (l.charCodeAt(n) === 32) n++;
    if (n === l.length || l.charCodeAt(n) === 35) continue;
    indents[count] = n;
    texts[count++] = n ? l.slice(n) : l;
  }
  let i = 0;

  const map = (indent: number): Out => {
    const out: Record<string, unknown> = {};
    while (i < count && indents[i] === indent && !texts[i].startsWith('- ')) {
      const m = KEY.exec(texts[i]);
      if (!m || m[1] === '__proto__' || Object.prototype.hasOwnProperty.call(out, m[1])) return FAIL;
      i++;
      let v: Out;
      if (m[2] === undefined || m[2] === '') {
        if (i < count && indents[i] > indent) v = texts[i].startsWith('- ') ? list(indents[i]) : map(indents[i]);
        else if (i < count && indents[i] === indent && texts[i].startsWith('- ')) return FAIL;
        else v = null;
      } else v = scalar(m[2]);
      if (v === FAIL) return FAIL;
      out[m[1]] = v;
    }
    return out;
  };

  const list = (indent: number): Out => {
    const out: unknown[] = [];
    while (i < count && indents[i] === indent && texts[i].startsWith('- ')) {
      const rest = texts[i].slice(2);
      let v: Out;
      if (KEY.test(rest)) {
        // "- key: value" opens a map whose keys sit two columns further in.
        indents[i] = indent + 2;
        texts[i] = rest;
        v = map(indent + 2);
      } else {
        v = scalar(rest);
        i++;
      }
      if (v === FAIL) return FAIL;
      out.push(v);
    }
    return out;
  };

  const top = map(0);
  return top === FAIL || i !== count ? null : (top as Record<string, unknown>);
}

/**
 * A Markdown record's front matter through parseHolonYaml, and its body, or null when the fast path
 * does not apply (then parseMarkdownRecord reads it, and reports any problem with its line). No raw
 * entries: for read-only callers.
 */
export function parseHolonRecord(text: string): { data: Record<string, unknown>; body: string } | null {
  if (!text.startsWith('---\n') || text.includes('\r') || /^(<{7}|={7}|>{7})(\s|$)/m.test(text)) return null;
  const close = /\n---[ \t]*(?:\n|$)/g;
  close.lastIndex = 3;
  const m = close.exec(text);
  if (!m) return null;
  const data = parseHolonYaml(text.slice(4, m.index + 1));
  return data ? { data, body: text.slice(m.index + m[0].length) } : null;
}

/** The front matter only (see parseHolonRecord). */
export function parseHolonFrontMatter(text: string): Record<string, unknown> | null {
  return parseHolonRecord(text)?.data ?? null;
}
