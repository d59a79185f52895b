import { yamlValue } from './record-codec.js';

/**
 * Value-level pieces of the record merge: three-way rules for scalars, sets and lists of records with
 * an id, and the writer that turns merged keys (or a conflict between two values) into YAML lines.
 */

/** JSON with sorted keys: two values are the same when this is. */
export function canon(v: unknown): string {
  if (v === undefined) return 'undefined';
  return JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
}

export const same = (a: unknown, b: unknown) => canon(a) === canon(b);

/** null, undefined, '' and [] all mean "not set" in a record. */
export function unset(v: unknown): boolean {
  return v == null || v === '' || (Array.isArray(v) && v.length === 0);
}

const norm = (v: unknown) => (unset(v) ? undefined : v);

export type Merged<T> = { ok: true; value: T } | { ok: false; ours: T; theirs: T };

/** One side changed it: that side. Both changed it the same way: that. Else a conflict. */
export function mergeScalar<T>(base: T, ours: T, theirs: T): Merged<T> {
  const [b, o, t] = [norm(base), norm(ours), norm(theirs)];
  if (same(o, t)) return { ok: true, value: ours };
  if (same(b, o)) return { ok: true, value: theirs };
  if (same(b, t)) return { ok: true, value: ours };
  return { ok: false, ours, theirs };
}

/** A set kept in order: what either side added is in, what either side removed is out. */
export function mergeSet(base: unknown, ours: unknown, theirs: unknown): unknown[] {
  const list = (v: unknown): unknown[] => (v == null ? [] : Array.isArray(v) ? v : [v]);
  const b = list(base).map(canon);
  const o = list(ours);
  const t = list(theirs);
  const oKeys = new Set(o.map(canon));
  const tKeys = new Set(t.map(canon));
  const removed = new Set(b.filter((k) => !oKeys.has(k) || !tKeys.has(k)));
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (const v of [...o, ...t]) {
    const k = canon(v);
    if (seen.has(k) || removed.has(k)) continue;
    seen.add(k);
    out.push(v);
  }
  return out;
}

type Rec = Record<string, unknown>;

/**
 * Records with an `id` (waits), merged one by one with `pick`. None is dropped: holon never deletes a
 * wait, so one missing on a side is one that side never saw. Order: by created_at, then id.
 */
export function mergeById(base: unknown, ours: unknown, theirs: unknown, pick: (b: Rec | undefined, o: Rec, t: Rec) => Rec): Rec[] {
  const arr = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter((x): x is Rec => Boolean(x) && typeof x === 'object') : []);
  const byId = (l: Rec[]) => new Map(l.map((x) => [String(x.id), x]));
  const b = byId(arr(base));
  const t = byId(arr(theirs));
  const out: Rec[] = [];
  const done = new Set<string>();
  for (const o of arr(ours)) {
    const id = String(o.id);
    done.add(id);
    const other = t.get(id);
    out.push(other ? pick(b.get(id), o, other) : o);
  }
  for (const x of arr(theirs)) if (!done.has(String(x.id))) out.push(x);
  // Creation order (then id), so both directions of a merge write the same list.
  const key = (x: Rec) => `${String(x.created_at ?? '')}\u0000${String(x.id)}`;
  return out.map((x, i) => ({ x, i, k: key(x) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i)).map((e) => e.x);
}

/** What the writer emits for one key: a value, a verbatim text, or a conflict between two values. */
export type KeyOut =
  | { key: string; lead?: string; value: unknown }
  | { key: string; lead?: string; raw: string }
  | { key: string; lead?: string; conflict: { ours: unknown; theirs: unknown; base: unknown; why?: string } };

const LABEL = 'holon merge';

/** The first line of a conflict block; `holon check` shows the text after `ours`. */
export const conflictOpen = (what: string) => `<<<<<<< ours (${LABEL}: ${what})`;
export const CONFLICT_CLOSE = '>>>>>>> theirs';

function keyText(key: string, v: unknown): string[] {
  return unset(v) ? [] : yamlValue({ [key]: v }).split('\n');
}

/** YAML lines for the keys; unset values are left out, as holon's writer does. */
export function emitKeys(keys: KeyOut[]): string[] {
  const out: string[] = [];
  for (const k of keys) {
    if ('raw' in k) {
      out.push(...k.raw.split('\n'));
      continue;
    }
    if ('conflict' in k) {
      const c = k.conflict;
      const base = `was ${unset(c.base) ? 'not set' : JSON.stringify(c.base).slice(0, 60)}`;
      out.push(...(k.lead ? k.lead.replace(/\n$/, '').split('\n') : []));
      out.push(conflictOpen(c.why ?? `${k.key} changed on both sides; ${base}`), ...keyText(k.key, c.ours), '=======', ...keyText(k.key, c.theirs), CONFLICT_CLOSE);
      continue;
    }
    const lines = keyText(k.key, k.value);
    if (lines.length && k.lead) out.push(...k.lead.replace(/\n$/, '').split('\n'));
    out.push(...lines);
  }
  return out;
}
