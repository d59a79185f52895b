import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A checker for the subset of JSON Schema (2020-12) that schemas/*.json use: type (one or a list),
 * const, enum, properties, required, additionalProperties (false or a schema), items, pattern,
 * allOf, anyOf, and $ref to another file and/or #/$defs/NAME. Returns the problems, empty when valid.
 */
export function validator(dir: string) {
  const files = new Map<string, any>();
  const load = (file: string) => {
    if (!files.has(file)) files.set(file, JSON.parse(readFileSync(join(dir, file), 'utf8')));
    return files.get(file);
  };
  const resolve = (ref: string, base: string): [any, string] => {
    const [file, pointer] = ref.split('#');
    const f = file || base;
    let node = load(f);
    for (const part of (pointer ?? '').split('/').filter(Boolean)) node = node[part];
    if (node === undefined) throw new Error(`unresolved $ref ${ref} in ${base}`);
    return [node, f];
  };
  const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
  const check = (s: any, v: any, path: string, base: string, out: string[]): void => {
    if (s.$ref) {
      const [target, f] = resolve(s.$ref, base);
      check(target, v, path, f, out);
    }
    if (s.type) {
      const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
      const t = typeOf(v);
      if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) out.push(`${path}: ${JSON.stringify(v)?.slice(0, 60)} is ${t}, not ${types.join('|')}`);
    }
    if ('const' in s && JSON.stringify(v) !== JSON.stringify(s.const)) out.push(`${path}: ${JSON.stringify(v)} is not ${JSON.stringify(s.const)}`);
    if (s.enum && !s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v))) out.push(`${path}: ${JSON.stringify(v)} is not one of ${JSON.stringify(s.enum)}`);
    if (s.pattern && typeof v === 'string' && !new RegExp(s.pattern).test(v)) out.push(`${path}: "${v}" does not match ${s.pattern}`);
    for (const sub of s.allOf ?? []) check(sub, v, path, base, out);
    if (s.anyOf && !s.anyOf.some((sub: any) => { const o: string[] = []; check(sub, v, path, base, o); return !o.length; })) out.push(`${path}: matches none of anyOf`);
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const k of s.required ?? []) if (!(k in v)) out.push(`${path}: missing "${k}"`);
      for (const [k, x] of Object.entries(v)) {
        if (s.properties && k in s.properties) check(s.properties[k], x, `${path}.${k}`, base, out);
        else if (s.additionalProperties === false) out.push(`${path}: unexpected key "${k}"`);
        else if (s.additionalProperties && typeof s.additionalProperties === 'object') check(s.additionalProperties, x, `${path}.${k}`, base, out);
      }
    }
    if (Array.isArray(v) && s.items) v.forEach((x, i) => check(s.items, x, `${path}[${i}]`, base, out));
  };
  return (file: string, value: unknown): string[] => {
    const out: string[] = [];
    check(load(file), value, '$', file, out);
    return out;
  };
}
