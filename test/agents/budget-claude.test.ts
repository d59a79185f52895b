import { afterEach, describe, expect, it } from 'vitest';
import { agentProject, requestText, type Turn } from './harness.js';

/**
 * Issue 17 against the real claude CLI: the loopback model stand-in reports usage, holon records it,
 * and an item's token budget (input + cache writes + output; cache reads not counted) stops the third wake.
 */
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** One run's model turns: a holon command through the CLI's shell tool, then a final answer. */
const turns = (id: string, step: string): Turn[] => [
  { shell: `holon progress ${id} "${step}"`, usage: { input: 1000, cache_read: 5000, cache_write: 200, output: 100 } },
  { text: `Recorded: ${step}.`, usage: { input: 100, cache_read: 5200, cache_write: 0, output: 20 } },
];
/** What one run counts against a token budget: 1000 + 200 + 100 + 100 + 20. */
const PER_RUN = 1420;

describe('claude, the real CLI, under a token budget', () => {
  it('counts the stand-in usage, warns the second run, and refuses the third wake once the budget is spent', async () => {
    const a = await agentProject('claude');
    closers.push(a.close);
    // 1700 tokens: after one run 1420 are spent (84 %, past the warning), after two 2840 (spent).
    const id = await a.create('Review PR #103', ['--budget', 'tokens=1700']);

    a.api.push(...turns(id, 'read the diff'));
    const [r1] = await a.once();
    expect(r1, a.log(r1)).toMatchObject({ status: 'ok', tokens: { uncached_input: 1100, cache_read: 10200, cache_write: 200, output: 120 } });
    expect(requestText(a.api.mainRequests[0].body)).not.toContain('budget is nearly spent');

    expect((await a.h(['tell', '--work', id, 'the author pushed a fix']).then((r) => r.code))).toBe(0);
    a.api.push(...turns(id, 'read the fix'));
    const [r2] = await a.once();
    expect(r2, a.log(r2)).toMatchObject({ status: 'ok', tokens: { uncached_input: 1100, cache_write: 200, output: 120 } });
    // The second run was told what was left of the budget.
    const warned = requestText(a.api.mainRequests[2].body);
    expect(warned).toContain(`This item's budget is nearly spent: ${1700 - PER_RUN} tokens of 1.7k tokens left`);

    const before = a.api.requests.length;
    expect((await a.h(['tell', '--work', id, 'one more look']).then((r) => r.code))).toBe(0);
    a.api.push(...turns(id, 'should never run'));
    const third = await a.pass();
    expect(third.runs).toEqual([]);
    expect(third.log).toContain(`not running rev on ${id} (operator_message): budget_exhausted: tokens ${2 * PER_RUN} of 1.7k spent, 0 left; item blocked`);
    // The CLI was not started: the model saw no request.
    expect(a.api.requests.length).toBe(before);
    const shown = await a.json(['show', id]);
    expect(shown).toMatchObject({ status: 'blocked', budget: { state: 'exhausted', figure: 'tokens', spent: { tokens: 2 * PER_RUN, cache_read: 2 * 10200, runs: 2 }, left: { tokens: 0 } } });
    expect(shown.budget.spent.cost_usd).toBeGreaterThan(0);
    expect(shown.blocker.reason).toBe(`budget_exhausted: tokens ${2 * PER_RUN} of 1.7k spent, 0 left`);
  });
});
