import { CHANNELS } from '../core/frontier-codes.js';
import { indented } from '../core/json-parts.js';
import { JoinedBytes } from './joined-bytes.js';

/**
 * The answer of `holon frontier --limit N` (what a person sees: 10 a channel) cut out of the default
 * answer's text, which lists every channel in full but not_runnable, of which it shows the first
 * `cap`. Each channel's first N entries are the same objects, in the same order, as an evaluation
 * with the limit lists (core/frontier.ts computeFrontier: the limit cuts the sorted channels; needs
 * decision is never cut), and the counts are the same: so the limited answer costs what the default
 * one costs, which is kept up to date by patches (frontier-patch.ts) where an evaluation of the limit's
 * own would be a whole-graph evaluation after every change. And it leaves the default answer's
 * snapshot where that answer was made: a limited view that read the changed files itself moved the
 * snapshot on, and the next `pick` found its answer no longer patchable.
 *
 * The text is jsonParts' (two spaces a level): a channel opens on `\n  "C": [\n` (or is `\n  "C": []`)
 * and closes on `\n  ]`, each entry is an object at depth two from `    {` to `\n    }`; no JSON string
 * holds a raw newline, and deeper lines start with more spaces, so those lines are found by their
 * bytes alone. Null when the text is not so, or the limit shows more not_runnable entries than the
 * default answer holds: the caller evaluates instead.
 */

const CLOSE_ENTRY = Buffer.from('\n    }');
const OPEN_ENTRY = Buffer.from('    {');
const CLOSE_CHANNEL = Buffer.from('\n  ]');
const RUNNABLE = Buffer.from('\n  "runnable": ');
const TRUNCATED_LINE = '\n  "truncated": ';
const TRUNCATED = Buffer.from(TRUNCATED_LINE);
const PROBLEMS = Buffer.from('\n  "problems": ');
const CUT = CHANNELS.filter((c) => c !== 'needs_decision');

/**
 * The limited answer's text in parts, and its `now` (as the default answer's text has it). The default
 * answer as one buffer, or in parts (a patched or evaluated one), read as one text without joining
 * them (store/joined-bytes.ts).
 */
export function limitedAnswer(given: Buffer | ReadonlyArray<string | Uint8Array>, limit: number, cap: number): { parts: Buffer[]; now: string } | null {
  if (!(Number.isInteger(limit) && limit > 0)) return null;
  const text = new JoinedBytes(Buffer.isBuffer(given) ? [given] : given);
  const headEnd = text.indexOf(RUNNABLE);
  if (headEnd < 1 || text.at(headEnd - 1) !== 0x2c) return null;
  let head: { now?: unknown; counts?: Record<string, unknown> };
  try {
    head = JSON.parse(text.slice(0, headEnd - 1).toString('utf8') + '\n}') as typeof head;
  } catch {
    return null;
  }
  if (typeof head.now !== 'string' || !head.counts) return null;
  const parts: Buffer[] = [text.slice(0, headEnd)];
  const truncated: Record<string, number> = {};
  // Where each channel's text ends (its comma): at the line of the one after it, found from the end
  // back, channel by channel. A channel of thousands (the runnable ones) is then not searched past its
  // first entries for its close (at 50,000 items, megabytes). Each such line is found by its bytes
  // alone: only a key of the answer's object starts a line with two spaces and a quote.
  const ends: number[] = [];
  for (let c = CHANNELS.length - 1, from = text.length; c >= 0; c--) {
    const next = text.lastIndexOf(c + 1 < CHANNELS.length ? Buffer.from(`\n  ${JSON.stringify(CHANNELS[c + 1])}: `) : TRUNCATED, from);
    if (next < 1) return null;
    ends[c] = next - 1;
    from = next - 1;
  }
  let at = headEnd;
  for (const [ci, c] of CHANNELS.entries()) {
    const count = head.counts[c];
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) return null;
    const held = c === 'not_runnable' ? Math.min(count, cap) : count;
    const want = c === 'needs_decision' ? count : Math.min(count, limit);
    if (want > held) return null;
    const line = Buffer.from(`\n  ${JSON.stringify(c)}: ${held ? '[\n' : '[]'}`);
    if (!text.startsWith(line, at)) return null;
    const start = at + line.length;
    let end = start;
    if (held) {
      // The first `want` entries, each checked where it starts.
      let p = start;
      for (let j = 0; j < want; j++) {
        if (j) {
          if (text.at(p) !== 0x2c || text.at(p + 1) !== 0x0a) return null;
          p += 2;
        }
        if (!text.startsWith(OPEN_ENTRY, p)) return null;
        const close = text.indexOf(CLOSE_ENTRY, p);
        if (close < 0) return null;
        p = close + CLOSE_ENTRY.length;
      }
      // The channel's close: right here when every entry is wanted, else where its text ends.
      end = want === held ? p : ends[ci] - CLOSE_CHANNEL.length;
      if (end < p || !text.startsWith(CLOSE_CHANNEL, end)) return null;
      parts.push(Buffer.from(`\n  ${JSON.stringify(c)}: ${want ? '[\n' : '[]'}`));
      if (want) parts.push(text.slice(start, p), CLOSE_CHANNEL);
      end += CLOSE_CHANNEL.length;
    } else parts.push(line);
    if (text.at(end) !== 0x2c) return null;
    parts.push(text.slice(end, end + 1));
    at = end + 1;
  }
  // In the order an evaluation with the limit fills it: channel order.
  for (const c of CUT) if ((head.counts[c] as number) > limit) truncated[c] = (head.counts[c] as number) - limit;
  if (!text.startsWith(TRUNCATED, at)) return null;
  const problems = text.indexOf(PROBLEMS, at);
  if (problems < 0 || text.at(problems - 1) !== 0x2c) return null;
  parts.push(Buffer.from(`${TRUNCATED_LINE}${indented(JSON.stringify(truncated, null, 2), '  ')},`), text.slice(problems));
  return { parts, now: head.now };
}
