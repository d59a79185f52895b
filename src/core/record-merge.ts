import { claimLive, sameHolder } from './claims.js';
import { canon, emitKeys, mergeById, mergeScalar, mergeSet, same, unset, type KeyOut } from './merge-values.js';
import { parseMarkdownRecord, parseYamlRecord, type ParsedRecord, type RawEntry } from './record-codec.js';
import { mergeBody } from './record-merge-body.js';
import { TIMER_KEYS } from './schedule.js';
import { mergeText } from './text-merge.js';
import { WORK_KEYS } from './workitem.js';

/**
 * The three-way merge of holon's records that `holon merge-file` runs for git. Pure: text in, text
 * out. WorkItems merge field by field (waits and claims by id and state, lists as sets, `revision`
 * above both sides) and their bodies section by section; timers and focus by their own rules; what
 * holon does not know merges like text. A true conflict is written as a git conflict block whose first
 * line says what conflicts, so `holon check` reports it with its file and line.
 */

export interface MergeInput {
  /** The path in the repository (%P): it says which kind of record this is. */
  path: string;
  base: string;
  ours: string;
  theirs: string;
  /** The clock, for whether a claim is still live. */
  nowMs: number;
}

export interface MergeConflict {
  line: number;
  what: string;
}

export interface MergeResult {
  kind: 'work' | 'timer' | 'focus' | 'event' | 'yaml' | 'text';
  text: string;
  conflicts: MergeConflict[];
}

type Rec = Record<string, unknown>;

export function recordKind(path: string): MergeResult['kind'] {
  const p = path.replace(/\\/g, '/');
  if (/(^|\/)agents\/[^/]+\/work\/[^/]+\.md$/.test(p)) return 'work';
  if (/(^|\/)agents\/[^/]+\/timers\/[^/]+\.yaml$/.test(p)) return 'timer';
  if (/(^|\/)agents\/[^/]+\/focus\.yaml$/.test(p)) return 'focus';
  if (/(^|\/)agents\/[^/]+\/(inbox|events)\/[^/]+\.yaml$/.test(p)) return 'event';
  if (/\.ya?ml$/.test(p)) return 'yaml';
  return 'text';
}

/** Conflict blocks in merged text: their line and what the first marker line says. */
export function conflictsIn(text: string): MergeConflict[] {
  const out: MergeConflict[] = [];
  text.split('\n').forEach((l, i) => {
    if (l.startsWith('<<<<<<<')) out.push({ line: i + 1, what: l.replace(/^<+\s*(ours\s*)?/, '').replace(/^\((.*)\)$/, '$1') || 'changed on both sides' });
  });
  return out;
}

export function mergeRecord(input: MergeInput): MergeResult {
  const kind = recordKind(input.path);
  let text: string | null = null;
  try {
    if (kind === 'work') text = mergeWork(input);
    else if (kind === 'timer') text = mergeYamlRecord(input, timerRules);
    else if (kind === 'focus') text = mergeYamlRecord(input, focusRules);
    else if (kind === 'event') text = mergeYamlRecord(input, eventRules);
    else if (kind === 'yaml') text = mergeYamlRecord(input, {});
  } catch {
    // A side that does not parse (bad YAML, markers from an earlier merge) merges as text.
    text = null;
  }
  const final = text ?? mergeText(input.base, input.ours, input.theirs).text;
  return { kind: text == null ? 'text' : kind, text: final, conflicts: conflictsIn(final) };
}

const EMPTY: ParsedRecord = { data: {}, entries: [], body: '' };

function parseSide(text: string, md: boolean): ParsedRecord {
  if (text.trim() === '') return EMPTY;
  return md ? parseMarkdownRecord(text, 'merge') : parseYamlRecord(text, 'merge');
}

const num = (v: unknown) => (Number.isFinite(Number(v)) ? Number(v) : 0);
const maxIso = (a: unknown, b: unknown) => (String(a ?? '') >= String(b ?? '') ? a : b);

/** Keys holon does not know: each merges as text (its raw lines), in ours' order then theirs' new ones. */
function unknownKeys(known: Set<string>, b: ParsedRecord, o: ParsedRecord, t: ParsedRecord): KeyOut[] {
  const raw = (r: ParsedRecord) => new Map(r.entries.filter((e) => !known.has(e.key)).map((e) => [e.key, e.raw]));
  const [B, O, T] = [raw(b), raw(o), raw(t)];
  const keys = [...new Set([...O.keys(), ...T.keys()])];
  const out: KeyOut[] = [];
  for (const key of keys) {
    const bo = B.get(key);
    const oo = O.get(key);
    const to = T.get(key);
    if (oo === undefined || to === undefined) {
      const only = (oo ?? to)!;
      if (bo !== undefined && bo === only) continue; // deleted on the other side
      out.push({ key, raw: only });
      continue;
    }
    const r = mergeText(bo ?? '', oo, to, { ours: `ours (holon merge: ${key} changed on both sides)`, theirs: 'theirs' });
    out.push({ key, raw: r.text.replace(/\n$/, '') });
  }
  return out;
}

const WAIT_RANK: Record<string, number> = { active: 0, triggered: 1, resolved: 2, cancelled: 2, expired: 2 };

/** A wait's state only moves forward; two different settlements: the first one (earlier settled_at). */
function pickWait(b: Rec | undefined, o: Rec, t: Rec): Rec {
  if (same(o, t) || (b && same(b, t))) return o;
  if (b && same(b, o)) return t;
  const ro = WAIT_RANK[String(o.status)] ?? 0;
  const rt = WAIT_RANK[String(t.status)] ?? 0;
  if (ro !== rt) return ro > rt ? o : t;
  const so = String(o.settled_at ?? o.resolved_at ?? '');
  const st = String(t.settled_at ?? t.resolved_at ?? '');
  if (so !== st) return so && (!st || so < st) ? o : t;
  return canon(o) <= canon(t) ? o : t;
}

type ClaimMerge = { ok: true; value: unknown } | { ok: false; why: string };

/** Claims by their counters: the higher epoch, then version, wins; two live claims by two holders conflict. */
function mergeClaim(base: unknown, ours: unknown, theirs: unknown, nowMs: number): ClaimMerge {
  const s = mergeScalar(base, ours, theirs);
  if (s.ok) return s;
  const o = ours as Rec | null;
  const t = theirs as Rec | null;
  if (!o || !t) return { ok: true, value: o ?? t };
  const live = (c: Rec) => claimLive(c as never, nowMs);
  if (live(o) && live(t) && !sameHolder(String(o.holder), String(t.holder))) {
    return { ok: false, why: `claim: two live claims, by ${o.holder} and by ${t.holder}; keep the one that holds` };
  }
  const key = (c: Rec) => [num(c.epoch), num(c.version)];
  const [eo, vo] = key(o);
  const [et, vt] = key(t);
  if (eo !== et) return { ok: true, value: eo > et ? o : t };
  if (vo !== vt) return { ok: true, value: vo > vt ? o : t };
  if (live(o) !== live(t)) return { ok: true, value: live(o) ? o : t };
  return { ok: true, value: canon(o) <= canon(t) ? o : t };
}

const LIST_KEYS = new Set(['depends_on', 'resume_when', 'requires', 'write_scope', 'needs_decision', 'exclude', 'successors']);

function mergeWork(input: MergeInput): string {
  const b = parseSide(input.base, true);
  const o = parseSide(input.ours, true);
  const t = parseSide(input.theirs, true);
  const [B, O, T] = [b.data, o.data, t.data];
  const merged: Rec = {};
  const conflicts = new Map<string, string | undefined>();
  for (const key of WORK_KEYS) {
    if (key === 'revision') merged[key] = Math.max(num(O[key]), num(T[key])) + 1;
    else if (key === 'updated_at') merged[key] = maxIso(O[key], T[key]);
    else if (key === 'waits') merged[key] = mergeById(B[key], O[key], T[key], pickWait);
    else if (LIST_KEYS.has(key)) merged[key] = mergeSet(B[key], O[key], T[key]);
    else if (key === 'claim') {
      const r = mergeClaim(B[key], O[key], T[key], input.nowMs);
      if (r.ok) merged[key] = r.value;
      else conflicts.set(key, r.why);
    } else {
      const r = mergeScalar(B[key], O[key], T[key]);
      if (r.ok) merged[key] = r.value;
      else conflicts.set(key, undefined);
    }
  }
  settleWaitsOfDone(merged);
  const leads = new Map<string, string>([...t.entries, ...o.entries].map((e: RawEntry) => [e.key, e.lead]));
  const keys: KeyOut[] = WORK_KEYS.map((key) =>
    conflicts.has(key)
      ? { key, lead: leads.get(key), conflict: { ours: O[key], theirs: T[key], base: B[key], why: conflicts.get(key) } }
      : { key, lead: leads.get(key), value: merged[key] },
  );
  keys.push(...unknownKeys(new Set(WORK_KEYS), b, o, t));
  const body = mergeBody(b.body, o.body, t.body);
  return `---\n${emitKeys(keys).join('\n')}\n---\n${body.text}`;
}

/** Done on one side, a new wait on the other: completing cancels waits, so the merge does too. */
function settleWaitsOfDone(m: Rec): void {
  if (m.status !== 'done' || !Array.isArray(m.waits)) return;
  const at = String((m.delivery as Rec | undefined)?.completed_at ?? m.updated_at ?? '');
  const reason = m.superseded_by ? 'superseded' : 'work_item_completed';
  m.waits = (m.waits as Rec[]).map((w) =>
    w.status === 'active' ? { ...w, status: 'cancelled', settled_at: at, settled_reason: reason } : w.status === 'triggered' ? { ...w, status: 'resolved', resolved_at: at } : w,
  );
}

interface YamlRules {
  /** Known keys in their written order (others follow, in ours' order). */
  order?: readonly string[];
  /** Merges the whole map at once; returns the merged values and the keys that conflict. */
  merge?: (b: Rec, o: Rec, t: Rec) => { merged: Rec; conflicts: string[] };
}

const SCHEDULE = ['next_due_at', 'last_fired_at', 'last_slot_at', 'fire_count', 'missed_count'];

/**
 * A timer's schedule comes from the side that fired further (fires are facts, never undone); a
 * cancel on either side holds; other fields merge one by one.
 */
const timerRules: YamlRules = {
  order: TIMER_KEYS,
  merge(b, o, t) {
    const merged: Rec = {};
    const conflicts: string[] = [];
    const ahead = num(o.fire_count) !== num(t.fire_count) ? (num(o.fire_count) > num(t.fire_count) ? o : t) : String(o.last_slot_at ?? '') >= String(t.last_slot_at ?? '') ? o : t;
    for (const key of new Set([...Object.keys(o), ...Object.keys(t)])) {
      if (key === 'revision') merged[key] = Math.max(num(o[key]), num(t[key])) + 1;
      else if (SCHEDULE.includes(key)) merged[key] = ahead[key];
      else {
        const r = mergeScalar(b[key], o[key], t[key]);
        if (r.ok) merged[key] = r.value;
        else if (key !== 'status' && key !== 'cancelled_at') conflicts.push(key);
      }
    }
    const cancelled = [o, t].find((x) => x.status === 'cancelled');
    if (cancelled) Object.assign(merged, { status: 'cancelled', cancelled_at: cancelled.cancelled_at, next_due_at: null });
    else if (o.status !== t.status) merged.status = [o, t].some((x) => x.status === 'fired') ? 'fired' : ahead.status;
    return { merged, conflicts };
  },
};

/** Focus is where the agent went last: the later `since` wins. */
const focusRules: YamlRules = {
  order: ['work_item', 'since'],
  merge(_b, o, t) {
    const so = String(o.since ?? '');
    const st = String(t.since ?? '');
    const win = so !== st ? (so > st ? o : t) : canon(o) <= canon(t) ? o : t;
    return { merged: { ...win }, conflicts: [] };
  },
};

/**
 * An event admitted on two clones (a task's result seen by two watchers): admitted beats queued, and
 * the first admission (earlier admitted_at) is the one kept. Its waits settled the same way.
 */
const eventRules: YamlRules = {
  merge(b, o, t) {
    const adm = (x: Rec) => x.status === 'admitted';
    if (adm(o) || adm(t)) {
      const win = adm(o) && adm(t) ? (String(o.admitted_at ?? '') !== String(t.admitted_at ?? '') ? (String(o.admitted_at ?? '') < String(t.admitted_at ?? '') ? o : t) : canon(o) <= canon(t) ? o : t) : adm(o) ? o : t;
      return { merged: { ...win }, conflicts: [] };
    }
    const merged: Rec = {};
    const conflicts: string[] = [];
    for (const key of new Set([...Object.keys(o), ...Object.keys(t)])) {
      const r = mergeScalar(b[key], o[key], t[key]);
      if (r.ok) merged[key] = r.value;
      else conflicts.push(key);
    }
    return { merged, conflicts };
  },
};

function mergeYamlRecord(input: MergeInput, rules: YamlRules): string {
  const b = parseSide(input.base, false);
  const o = parseSide(input.ours, false);
  const t = parseSide(input.theirs, false);
  let merged: Rec = {};
  let conflicts: string[] = [];
  if (rules.merge) ({ merged, conflicts } = rules.merge(b.data, o.data, t.data));
  else {
    for (const key of new Set([...Object.keys(o.data), ...Object.keys(t.data)])) {
      const r = mergeScalar(b.data[key], o.data[key], t.data[key]);
      if (r.ok) merged[key] = r.value;
      else conflicts.push(key);
    }
  }
  const order = [...(rules.order ?? []), ...[...o.entries, ...t.entries].map((e) => e.key)];
  const keys: KeyOut[] = [];
  for (const key of new Set(order)) {
    if (conflicts.includes(key)) keys.push({ key, conflict: { ours: o.data[key], theirs: t.data[key], base: b.data[key] } });
    else if (!unset(merged[key]) || merged[key] === null) keys.push({ key, value: merged[key] });
  }
  // Timers and focus write null fields explicitly; keep that form.
  return emitKeys(keys.map((k) => ('value' in k && k.value === null ? { key: k.key, raw: `${k.key}: null` } : k))).join('\n') + '\n';
}
