import { entryOrderKey, type FrontierEntry } from '../core/frontier.js';
import { blockOf, CLOSE_ARRAY, CLOSE_ENTRY, entryAt, isEntryAt, PER, shownId } from './frontier-entry-text.js';
import { give, orEvaluate } from './frontier-patch-parts.js';
import { planPatch, type PatchInput, type PatchPlan } from './frontier-patch-plan.js';
import type { Home } from './home.js';

/**
 * The top of the runnable channel as a verdict patch (frontier-patch.ts) would leave it, from the start
 * of the answer alone: what `holon pick` reads when an index keeper will compute the whole answer again
 * anyway (ops/frontier-patched.ts leftToKeeper says when). The same plan (planPatch: the changed items and their readers
 * evaluated again, the same grounds to give up), then runnable's old entries less the affected ones,
 * merged with the affected ones now runnable in key order, as the patch's binary search places them
 * (a new entry before an old one whose key is not lower). Old entries are taken as far as `text`
 * holds them; the channel's close follows only when all of it is there.
 *
 * The text is the answer's head (unchanged: a pick reads no count) and runnable's line, then the
 * entries: no JSON document, but what channelEntries reads (frontier-entry-text.ts), which asks for
 * the whole answer past them. Null when the plan gives up or the text is not as its index says. The
 * answer's end is not read, so not checked for problem records as the patch checks it: a read index
 * is made only for an answer with none (frontier-deps.ts depIndexOf), and no patch keeps one after a
 * record that does not parse.
 * test/cli/pick-head.test.ts compares the item claimed with a full evaluation's first.
 */
export const patchedHead = (home: Home, x: PatchInput): { parts: Buffer[]; evaluated: number; plan: PatchPlan } | null =>
  orEvaluate('top of runnable not patched', () => head(home, x));

const OPEN = Buffer.from('\n  "runnable": [\n');
const EMPTY = Buffer.from('\n  "runnable": [],\n');
const COMMA = Buffer.from(',\n');

function head(home: Home, x: PatchInput): { parts: Buffer[]; evaluated: number; plan: PatchPlan } {
  const { text, index, listings, holder } = x;
  const plan = planPatch(home, x);
  const headEnd = text.indexOf('\n  "runnable": ');
  if (headEnd < 1 || text[headEnd - 1] !== 0x2c) give('the answer has no head');
  const count = index.channels[0][0];
  const line = count ? OPEN : Buffer.from('\n  "runnable": []');
  if (!text.subarray(headEnd, headEnd + line.length).equals(line)) give('runnable is not where it is expected');
  const gone = new Set<number>();
  for (const [c, j] of plan.shownAt.values()) if (c === 0) gone.add(j);
  const news: Array<{ e: FrontierEntry; key: string }> = [];
  for (const now of plan.judged.values()) if (now && 'e' in now && now.channel === 0) news.push(now);
  news.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

  const q = index.quads;
  const first = plan.starts[0];
  /** Where old entry j ends (after its closing brace), from where it starts; -1 past the text read. */
  const endOf = (j: number, at: number): number => {
    const len = q[PER * (first + j) + 4];
    const end = len > 5 ? at + len : text.indexOf(CLOSE_ENTRY, at) + CLOSE_ENTRY.length;
    if (end < CLOSE_ENTRY.length || end + 4 > text.length) return -1;
    const after = j + 1 < count ? text[end] === 0x2c && text[end + 1] === 0x0a : text.subarray(end, end + CLOSE_ARRAY.length).equals(CLOSE_ARRAY);
    if (!after || !isEntryAt(text, at, end)) give('an entry is not where the index says');
    return end;
  };
  const idAt = (j: number) => shownId(listings, q, PER * (first + j));

  const parts: Buffer[] = [text.subarray(0, headEnd), OPEN];
  let shown = 0;
  const put = (b: Buffer) => {
    if (shown++) parts.push(COMMA);
    parts.push(b);
  };
  let j = 0;
  let k = 0;
  let at = headEnd + OPEN.length;
  while (j < count || k < news.length) {
    if (j === count) {
      put(blockOf(news[k++].e));
      continue;
    }
    const end = endOf(j, at);
    if (end < 0) break;
    if (gone.has(j)) {
      if (entryAt(text, [at, end], 0)?.id !== idAt(j)) give('an entry is not where the index says');
    } else {
      if (k < news.length) {
        const e = entryAt(text, [at, end], 0);
        if (e?.id !== idAt(j)) give('an entry is not where the index says');
        if (!(entryOrderKey(e, holder) < news[k].key)) {
          put(blockOf(news[k++].e));
          continue;
        }
      }
      put(text.subarray(at, end));
    }
    at = end + 2;
    j++;
  }
  const evaluated = plan.judged.size;
  if (j < count || k < news.length) return { parts, evaluated, plan };
  // All of it: closed as the answer closes a channel (an empty one on its line, as channelEntries knows it).
  return { parts: shown ? [...parts, CLOSE_ARRAY] : [parts[0], EMPTY], evaluated, plan };
}
