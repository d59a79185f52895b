import { describe, expect, it } from 'vitest';
import { jsonParts } from '../../src/core/json-parts.js';
import { JoinedBytes } from '../../src/store/joined-bytes.js';
import { limitedAnswer } from '../../src/store/frontier-limit.js';

const CHANNELS = ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable'] as const;

/** A frontier as computeFrontier shapes it, channels of the given lengths; entries with nested fields. */
function frontier(lengths: Record<string, number>, limit: number | null, cap: number | null) {
  const entry = (c: string, j: number) => ({ id: `w-${c.slice(0, 3)}${j}`, title: `a "quoted" title {with} ]brackets[ ${j}`, checks: [{ check: 'x', pass: true }], claim: j % 2 ? null : { holder: 'agent:main', version: 1 }, code: c, blocks: c === 'needs_decision' ? ['w-1', 'w-2'] : undefined });
  const counts: Record<string, unknown> = { total: 99, closed: 3, by_code: { a: 1 } };
  const out: Record<string, unknown> = { agent: 'main', holder: 'agent:main', now: '2026-12-05T00:00:00Z', counts };
  const truncated: Record<string, number> = {};
  for (const c of CHANNELS) {
    counts[c] = lengths[c] ?? 0;
    let list = Array.from({ length: lengths[c] ?? 0 }, (_, j) => entry(c, j));
    if (limit !== null && c !== 'needs_decision' && list.length > limit) {
      truncated[c] = list.length - limit;
      list = list.slice(0, limit);
    }
    out[c] = list;
  }
  if (cap !== null && (out.not_runnable as unknown[]).length > cap) {
    truncated.not_runnable = (truncated.not_runnable ?? 0) + (out.not_runnable as unknown[]).length - cap;
    out.not_runnable = (out.not_runnable as unknown[]).slice(0, cap);
  }
  return { ...out, truncated, problems: [] };
}
const text = (f: unknown) => Buffer.from([...jsonParts(f)].join(''));

describe('a limited frontier cut from the default answer', () => {
  const lengths = { runnable: 30, needs_decision: 4, needs_action: 0, waiting: 2, resume_candidates: 5, not_runnable: 70 };
  it.each([1, 2, 5, 29, 30, 31, 50])('is the evaluation with --limit %i, to the byte', (limit) => {
    const cut = limitedAnswer(text(frontier(lengths, null, 50)), limit, 50);
    expect(cut).not.toBeNull();
    expect(Buffer.concat(cut!.parts).toString()).toBe(text(frontier(lengths, limit, 50)).toString());
    expect(cut!.now).toBe('2026-12-05T00:00:00Z');
    // The same text in parts (a patched answer), cut anywhere, even inside what is searched for.
    const whole = text(frontier(lengths, null, 50));
    for (const size of [1, 3, 7, 64, 1000]) {
      const parts = Array.from({ length: Math.ceil(whole.length / size) }, (_, k) => whole.subarray(k * size, (k + 1) * size));
      const inParts = limitedAnswer(parts, limit, 50);
      expect(Buffer.concat(inParts!.parts).equals(Buffer.concat(cut!.parts)), `parts of ${size} bytes`).toBe(true);
    }
  });
  it('every channel empty', () => {
    const empty = {};
    expect(Buffer.concat(limitedAnswer(text(frontier(empty, null, 50)), 3, 50)!.parts).toString()).toBe(text(frontier(empty, 3, 50)).toString());
  });
  it('is not made past what the default answer shows of not_runnable, nor from a text not so', () => {
    const whole = text(frontier(lengths, null, 50));
    expect(limitedAnswer(whole, 51, 50)).toBeNull();
    expect(limitedAnswer(whole, 0, 50)).toBeNull();
    // Some other count than the channel holds, a channel missing, a problem list cut off: null, not a wrong answer.
    expect(limitedAnswer(Buffer.from(whole.toString().replace('"waiting": 2', '"waiting": 3')), 5, 50)).toBeNull();
    expect(limitedAnswer(Buffer.from(whole.toString().replace('"waiting"', '"waits"')), 5, 50)).toBeNull();
    expect(limitedAnswer(whole.subarray(0, whole.length - 20), 5, 50)).toBeNull();
    expect(limitedAnswer(Buffer.from('{"agent": "main"}'), 5, 50)).toBeNull();
  });
});

describe('bytes in parts read as one text', () => {
  it('finds, slices and compares as the joined buffer does, wherever the parts are cut', () => {
    const whole = Buffer.from('ab\n    }\n  ]é,\n    {x\n    }\n  ],\n  "problems": []\n}');
    const needles = ['\n    }', '\n  ]', '    {', 'é', '\n  "problems": ', 'nowhere', '}'].map((n) => Buffer.from(n));
    for (const cuts of [[1], [2, 5], [3, 4, 5, 6, 7], [10], [0, 0, 8, 8]]) {
      // Parts cut at the given lengths, round and round, empty ones and strings among them.
      const parts: Array<Buffer | string> = [];
      for (let at = 0, k = 0; at < whole.length; k++) {
        const n = cuts[k % cuts.length];
        const piece = whole.subarray(at, at + n);
        // Every third a string, where its bytes are whole characters.
        parts.push(k % 3 === 2 && Buffer.from(piece.toString()).equals(piece) ? piece.toString() : piece);
        at += n;
      }
      const j = new JoinedBytes(parts);
      expect(j.length).toBe(whole.length);
      for (const n of needles) for (let from = -1; from <= whole.length + 1; from++) expect(j.indexOf(n, from), `${n} from ${from}, cuts ${cuts}`).toBe(whole.indexOf(n, Math.max(from, 0)));
      for (const n of needles) for (let from = -1; from <= whole.length + 1; from++) expect(j.lastIndexOf(n, from), `last ${n} from ${from}, cuts ${cuts}`).toBe(from < 0 ? -1 : whole.lastIndexOf(n, from));
      for (const n of needles) expect(j.lastIndexOf(n)).toBe(whole.lastIndexOf(n));
      for (let a = 0; a <= whole.length; a++) {
        expect(j.at(a)).toBe(a < whole.length ? whole[a] : -1);
        for (const n of needles) expect(j.startsWith(n, a)).toBe(whole.subarray(a, a + n.length).equals(n));
        for (let b = a; b <= whole.length + 2; b += 3) expect(j.slice(a, b).equals(whole.subarray(a, b))).toBe(true);
      }
    }
  });
});
