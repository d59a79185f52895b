import { join } from 'node:path';
import { closedCode, entryOf, entryOrderKey, evaluate } from '../core/frontier.js';
import type { Prepared, TimeBounds } from '../core/frontier-checks.js';
import { CHANNELS } from '../core/frontier-codes.js';
import { evaluatedFor, ReadLog, specialItem } from '../core/frontier-reads.js';
import type { WorkItem } from '../core/types.js';
import { buildFrontierInput, type InputUse } from './frontier-input.js';
import { give, type Judged } from './frontier-patch-parts.js';
import { headEndOf } from './frontier-entry-text.js';
import { parseEntry } from './graph-entry.js';
import { itemOf } from './graph-slim.js';
import type { Home } from './home.js';
import type { Listing } from './work-listing.js';
import { workDir } from './work-store.js';

/**
 * The evaluation of a verdict patch (frontier-patch.ts): one item at a time, against the items it
 * reads, taken from the changed ones or parsed from their files on first look. `reads` gets what each
 * verdict read, `used` what it looked at beyond the work files, `bounds` when its answer flips.
 */
export function verdictJudge(home: Home, x: { agent: string; holder: string; nowMs: number; cwd: string; listings: Listing[]; fresh: Map<string, WorkItem> }): { judge: (id: string) => Judged; reads: Map<string, string[]>; used: InputUse; bounds: TimeBounds } {
  const { agent, holder } = x;
  const { input, used } = buildFrontierInput(home, agent, { holder, nowMs: x.nowMs, cwd: x.cwd }, { items: [], problems: [] });
  const log = new ReadLog((id) => x.fresh.get(id) ?? readById(home, x.listings, id));
  // No indexes over every item: a special item is never judged here (specialItem).
  const p: Prepared = {
    input, byId: log, cycles: new Map(), gatesByKind: new Map(), coverMemo: new Map(), leasesByRepo: new Map(), predecessors: new Map(),
    verbose: false, bounds: { from: -Infinity, until: Infinity },
  };
  const reads = new Map<string, string[]>();
  const judge = (id: string): Judged => {
    const item = log.get(id);
    if (!item || specialItem(item)) give('an item is missing or special');
    if (!evaluatedFor(item, agent)) return null;
    if (item.status === 'done' || item.superseded_by) return { closed: closedCode(item) };
    log.reading = [];
    const v = evaluate(p, item);
    const read = log.reading;
    log.reading = null;
    const channel = (CHANNELS as readonly string[]).indexOf(v.channel);
    if (v.gates.length || channel < 0 || CHANNELS[channel] === 'needs_decision') give(`${id} waits on a gate`);
    reads.set(id, read);
    const e = entryOf(p, v);
    return { e, key: entryOrderKey(e, holder), channel };
  };
  return { judge, reads, used, bounds: p.bounds };
}

/** The item with this id from its file in one of the listed folders (an id never names a path). */
function readById(home: Home, listings: Listing[], id: string): WorkItem | undefined {
  if (!id || id.includes('/') || id.includes('\0')) return undefined;
  for (const l of listings) {
    const name = `${id}.md`;
    const e = parseEntry(join(workDir(home, l.agent), name), id, l.agent, '', !l.irregular.has(name));
    if (e) return e[1] ? itemOf(e[1], id, l.agent) : give('a record does not parse');
  }
  return undefined;
}

/** The answer's head (agent, holder, now, counts) and where the channels start. */
export function answerHead(text: Buffer): { head: { now: string; counts: Record<string, number> & { by_code: Record<string, number> } }; headEnd: number } {
  const headEnd = headEndOf(text);
  if (headEnd < 0) give('the answer has no head');
  return { head: JSON.parse(text.toString('utf8', 0, headEnd - 1) + '\n}'), headEnd };
}
