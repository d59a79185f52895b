import { cycleNode, evaluatedFor, specialItem, type VerdictRecord } from '../core/frontier-reads.js';
import type { FrontierEntry } from '../core/frontier.js';
import type { WorkItem } from '../core/types.js';

/**
 * What an evaluated answer's verdicts read (core/frontier-reads.ts), kept beside the answer so that a
 * change of a few items re-evaluates them and their readers alone (frontier-patch.ts). Stored under
 * the answer's lineage (frontier-cache.ts), like the entries its cap left out: a new title or
 * priority written into the answer (frontier-titles.ts) changes no verdict, no read and no entry's
 * place between shown and left out, so the answers patched so keep it.
 */
export interface DepIndex {
  /** Items of any agent that feed or read an index over every item (specialItem). */
  special: string[];
  /** The agent's superseded items (counted closed as `superseded`; the rest of the closed: `status_done`). */
  superseded: string[];
  /** Items evaluated for the agent outside its folder, or not evaluated for it inside it. */
  odd: string[];
  /**
   * The special ones among them in full, by where their files are (as a row's `at`): one that comes
   * into view is not evaluated again (that would need the indexes over every item), and nothing it read changed.
   */
  cutEntries: Record<string, FrontierEntry>;
  /** Per item, what it depends on and what its verdict read (DepRows). */
  rows: DepRows;
}

/** One item's facts in the index. An item with neither dependencies nor reads has no row. */
export interface DepRow {
  /** A live item's depends_on, '\n' between ids (cycleNode); null for any other item. */
  deps: string | null;
  /** For an evaluated item of the agent: the ids its verdict looked up. */
  reads: string[];
  /** Where its file is in the title index's listings (listing * 2^32 + position), when it has reads. */
  at: number | null;
}

const NL = 0x0a;

/**
 * The rows as text, one JSON line per item (`[id, deps, reads, at]`), looked up by search and never
 * parsed whole: at 50,000 items they are a megabyte, which a patch that re-evaluates a handful of
 * items used to parse and write again as one JSON object (some 30 ms). An item's row is found by its
 * line's start (`\n[` and the id as JSON: a raw newline is never inside a JSON line); the readers of
 * an item by the id as JSON anywhere in the text, each line found so parsed and checked, since the
 * same characters can stand inside another string. The text starts with a newline, and each line ends
 * with one.
 */
export class DepRows {
  constructor(readonly text: Buffer) {}

  static of(rows: Iterable<[string, DepRow]>): DepRows {
    let out = '\n';
    for (const [id, r] of rows) if (r.deps !== null || r.reads.length) out += `${JSON.stringify([id, r.deps, r.reads, r.at])}\n`;
    return new DepRows(Buffer.from(out));
  }

  /** Whether `text` is rows as written here (the lines themselves are checked as they are read). */
  static valid(text: Buffer): boolean {
    return text.length > 0 && text[0] === NL && text[text.length - 1] === NL;
  }

  private lineAt(id: string): [number, number] | null {
    const s = this.text.indexOf(`\n[${JSON.stringify(id)},`);
    return s < 0 ? null : [s + 1, this.text.indexOf(NL, s + 1) + 1];
  }

  private parse(s: number, e: number): [string, DepRow] {
    const v = JSON.parse(this.text.toString('utf8', s, e)) as unknown;
    if (!Array.isArray(v) || v.length !== 4 || typeof v[0] !== 'string' || !(v[1] === null || typeof v[1] === 'string') || !Array.isArray(v[2]) || !(v[3] === null || typeof v[3] === 'number')) {
      throw new Error('a row of the read index is not as written');
    }
    return [v[0], { deps: v[1], reads: v[2] as string[], at: v[3] }];
  }

  get(id: string): DepRow | undefined {
    const at = this.lineAt(id);
    return at ? this.parse(...at)[1] : undefined;
  }

  /**
   * The items whose verdicts read any of `ids`, with where their files are; null past `max` of them
   * (the patch would give up anyway).
   */
  readersOf(ids: Iterable<string>, max: number): Map<string, number | null> | null {
    const wanted = new Set(ids);
    const lines = new Set<number>();
    const out = new Map<string, number | null>();
    for (const id of wanted) {
      const needle = Buffer.from(JSON.stringify(id));
      for (let p = this.text.indexOf(needle); p >= 0; p = this.text.indexOf(needle, p + needle.length)) {
        const s = this.text.lastIndexOf(NL, p) + 1;
        if (lines.has(s)) continue;
        lines.add(s);
        const [reader, row] = this.parse(s, this.text.indexOf(NL, p) + 1);
        if (!row.reads.some((r) => wanted.has(r))) continue;
        out.set(reader, row.at);
        if (out.size > max) return null;
      }
    }
    return out;
  }

  /** The rows with those of `next`'s ids replaced (a row with neither dependencies nor reads: removed). */
  with(next: Map<string, DepRow>): DepRows {
    const cuts: Array<[number, number]> = [];
    for (const id of next.keys()) {
      const at = this.lineAt(id);
      if (at) cuts.push(at);
    }
    cuts.sort((a, b) => a[0] - b[0]);
    const parts: Buffer[] = [];
    let from = 0;
    for (const [s, e] of cuts) {
      parts.push(this.text.subarray(from, s));
      from = e;
    }
    parts.push(this.text.subarray(from), DepRows.of(next).text.subarray(1));
    return new DepRows(Buffer.concat(parts));
  }
}

/**
 * The index of an evaluation over `items` for `agent` (whose folder is `own`: items listed there), or
 * null when no change could be patched anyway: an id in two files, a dependency cycle, a record that
 * did not parse.
 */
export function depIndexOf(items: readonly WorkItem[], agent: string, folderOf: (i: number) => string, rec: VerdictRecord, problems: number, tail: FrontierEntry[], where: Map<string, number>): DepIndex | null {
  if (rec.unique !== items.length || rec.cycles > 0 || problems > 0) return null;
  const special: string[] = [];
  const rows = new Map<string, DepRow>();
  const superseded: string[] = [];
  const odd: string[] = [];
  for (let n = 0; n < items.length; n++) {
    const i = items[n];
    if (specialItem(i)) special.push(i.id);
    if (cycleNode(i)) rows.set(i.id, { deps: i.depends_on.join('\n'), reads: [], at: null });
    const mine = evaluatedFor(i, agent);
    if (mine !== (folderOf(n) === agent)) odd.push(i.id);
    if (mine && i.superseded_by && i.status !== 'done') superseded.push(i.id);
  }
  const specials = new Set(special);
  const cutEntries: Record<string, FrontierEntry> = {};
  for (const e of tail) if (specials.has(e.id)) cutEntries[where.get(e.id)!] = e;
  for (const [id, reads] of rec.reads) {
    const w = where.get(id);
    if (w === undefined || w < 0) return null;
    rows.set(id, { deps: rows.get(id)?.deps ?? null, reads, at: w });
  }
  return { special, superseded, odd, cutEntries, rows: DepRows.of(rows) };
}

/**
 * The first line of the stored index: what is not a row. Its `v` tells this layout from an older one
 * (3: the codes of the entries left out went to the cut's own file, frontier-cut.ts, which keeps them in its order).
 */
const HEAD_VERSION = 3;

/** The index as stored (after its lineage line): the head's JSON line, then the rows. */
export const depParts = (d: DepIndex): Buffer[] => {
  const { rows, ...head } = d;
  return [Buffer.from(JSON.stringify({ v: HEAD_VERSION, ...head })), rows.text];
};

export function parseDeps(buf: Buffer): DepIndex | null {
  try {
    const nl = buf.indexOf(NL);
    if (nl < 0) return null;
    const d = JSON.parse(buf.toString('utf8', 0, nl)) as DepIndex & { v?: number };
    const rows = buf.subarray(nl);
    const arrays = [d.special, d.superseded, d.odd].every(Array.isArray);
    if (d.v !== HEAD_VERSION || !arrays || !d.cutEntries || typeof d.cutEntries !== 'object' || !DepRows.valid(rows)) return null;
    const { v: _v, ...head } = d;
    return { ...head, rows: new DepRows(rows) };
  } catch {
    return null;
  }
}
