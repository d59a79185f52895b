/**
 * A small JSON Schema checker for the subset holon's own schemas use: type (one or a list), enum,
 * properties, required, additionalProperties: false, items, minLength. Enough for CommandResult
 * without a schema library; it returns readable problems with the JSON path of each.
 */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  minLength?: number;
  description?: string;
}

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v;

function typeMatches(v: unknown, t: string): boolean {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
}

/** Problems of `value` against `schema`, as "path: what is wrong" lines; empty when it validates. */
export function validateJson(schema: Schema, value: unknown, path = '$'): string[] {
  const out: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(value, t))) return [`${path}: expected ${types.join(' or ')}, got ${typeOf(value)}`];
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) out.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof value === 'string' && schema.minLength !== undefined && value.length < schema.minLength) out.push(`${path}: must not be empty`);
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => out.push(...validateJson(schema.items!, v, `${path}[${i}]`)));
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const k of schema.required ?? []) if (!(k in obj)) out.push(`${path}: missing required field "${k}"`);
    for (const [k, v] of Object.entries(obj)) {
      const sub = schema.properties?.[k];
      if (sub) out.push(...validateJson(sub, v, `${path}.${k}`));
      else if (schema.additionalProperties === false) out.push(`${path}: unknown field "${k}"`);
    }
  }
  return out;
}
