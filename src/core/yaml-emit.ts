/**
 * The YAML of record-codec's yamlValue for the values holon writes nearly always (maps and lists of
 * printable-ASCII strings, safe integers, booleans and null), without loading the yaml library: a
 * `holon progress` otherwise loads it only to write `updated_at` and `revision`. Returns null for
 * anything else, and the caller uses the library. Its output is the library's, byte for byte (with
 * yamlValue's options: strings double-quoted, plain keys, indent 2, no folding): test/core/yaml-emit.test.ts.
 */

const SAFE_STRING = /^[\x20-\x7e]*$/;
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const AMBIGUOUS_KEY = /^(true|false|null|yes|no|on|off|y|n)$/i;

function scalar(v: unknown): string | null {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) ? String(v) : null;
  if (typeof v === 'string') return SAFE_STRING.test(v) ? `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"` : null;
  return null;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** Lines of a map's entries at `indent` spaces, or null. */
function mapLines(m: Record<string, unknown>, indent: number, out: string[]): boolean {
  const pad = ' '.repeat(indent);
  for (const [k, v] of Object.entries(m)) {
    if (v === undefined) continue;
    if (!PLAIN_KEY.test(k) || AMBIGUOUS_KEY.test(k)) return false;
    const s = inline(v);
    if (s !== null) out.push(`${pad}${k}: ${s}`);
    else if (Array.isArray(v)) {
      out.push(`${pad}${k}:`);
      if (!listLines(v, indent + 2, out)) return false;
    } else if (isMap(v)) {
      out.push(`${pad}${k}:`);
      if (!mapLines(v, indent + 2, out)) return false;
    } else return false;
  }
  return true;
}

/** Lines of a list's items at `indent` spaces ("- " then the item), or null. */
function listLines(l: unknown[], indent: number, out: string[]): boolean {
  const pad = ' '.repeat(indent);
  for (const v of l) {
    const s = inline(v);
    if (s !== null) out.push(`${pad}- ${s}`);
    else if (isMap(v)) {
      const sub: string[] = [];
      if (!mapLines(v, indent + 2, sub)) return false;
      // The first entry shares the dash's line.
      out.push(`${pad}- ${sub[0].slice(indent + 2)}`, ...sub.slice(1));
    } else return false;
  }
  return true;
}

/** A scalar, or an empty list/map, on the key's own line. */
function inline(v: unknown): string | null {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : null;
  if (isMap(v)) return Object.values(v).every((x) => x === undefined) ? '{}' : null;
  return scalar(v);
}

export function emitSimpleYaml(value: unknown): string | null {
  const s = inline(value);
  if (s !== null) return s;
  const out: string[] = [];
  if (Array.isArray(value)) return listLines(value, 0, out) ? out.join('\n') : null;
  if (isMap(value)) return mapLines(value, 0, out) ? out.join('\n') : null;
  return null;
}
