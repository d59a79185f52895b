import { describe, expect, it } from 'vitest';
import { HolonError } from '../../src/core/errors.js';
import { validateJson } from '../../src/core/json-schema.js';
import {
  assertCanSend, checkCommandResult, commandInput, extractJson, historyFor, sessionTotalsBefore, splitAnswer, stateAfter, STRICT_RESULT_SCHEMA, sumUsage,
  threadPrompt, type CommandRecord, type ThreadRecord,
} from '../../src/core/threads.js';
import { parseWaitFor, sourceMaySettle } from '../../src/core/wait-matching.js';
import { outsideScope, pathInGlob } from '../../src/core/write-scope.js';

const thread = (over: Partial<ThreadRecord> = {}): ThreadRecord => ({
  id: 'th-aaaaaaaa', agent: 'main', role: 'grid specialist',
  policy: { runner: 'command', command: 'x', model: null, tools: [], scope: ['src/grid/**'], context_policy: 'full' },
  work_item: null, workdir: '.', created_at: '2026-12-01T00:00:00Z', created_by: 'operator', state: 'idle', active_command: null,
  session_id: null, session: 1, checkpoint: null, command_count: 0, last_command: null, updated_at: '2026-12-01T00:00:00Z', closed_at: null, close_reason: null,
  ...over,
});

const command = (seq: number, over: Partial<CommandRecord> = {}): CommandRecord => ({
  id: `c-${seq}`, thread: 'th-aaaaaaaa', seq, session: 1, status: 'finished', objective: `step ${seq}`, scope: [], constraints: [], context_refs: [],
  expected_result: null, sent_at: '', sent_by: 'operator', host: null, ended_at: '', result: { status: 'completed', summary: `did ${seq}`, files_changed: ['a.ts'], ready_for_next: true },
  result_errors: [], raw_output: null, usage: null, cost_usd: null, exit_code: 0, session_id: null, resumed_session: null, scope_check: null, event: null, ...over,
});

describe('CommandResult schema', () => {
  it.each([
    [{ status: 'completed', summary: 's', ready_for_next: true }, []],
    [{ status: 'blocked', summary: 's', blocker: 'needs a decision', ready_for_next: false, files_read: ['a'] }, []],
    [{ status: 'completed', summary: 's', ready_for_next: true, blocker: null }, []],
    [{ status: 'ok', summary: 's', ready_for_next: true }, ['$.status: "ok" is not one of "completed", "blocked", "failed"']],
    [{ status: 'failed', ready_for_next: true }, ['$: missing required field "summary"']],
    [{ status: 'failed', summary: 's', ready_for_next: 1 }, ['$.ready_for_next: expected boolean, got integer']],
    [{ status: 'failed', summary: 's', ready_for_next: true, files_changed: ['a', 2] }, ['$.files_changed[1]: expected string, got integer']],
    [{ status: 'failed', summary: 's', ready_for_next: true, note: 'x' }, ['$: unknown field "note"']],
    [[1], ['$: expected object, got array']],
  ])('%j -> %j', (value, problems) => {
    expect(checkCommandResult(value)).toEqual(problems);
  });

  it('the strict schema for the CLIs requires every field, and its answers satisfy the RFC schema', () => {
    const full = { status: 'completed', summary: 's', files_read: [], files_changed: [], validation: [], discoveries: [], blocker: null, ready_for_next: true };
    expect(validateJson(STRICT_RESULT_SCHEMA, full)).toEqual([]);
    expect(checkCommandResult(full)).toEqual([]);
    expect(validateJson(STRICT_RESULT_SCHEMA, { status: 'completed', summary: 's', ready_for_next: true })).toHaveLength(5);
  });
});

describe('reading an answer', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['log line\n{"a":2}\n', { a: 2 }],
    ['Here it is:\n```json\n{"a":3}\n```\nbye', { a: 3 }],
    ['Result: {"a": {"b": 4}} done', { a: { b: 4 } }],
  ])('%j', (text, value) => {
    expect(extractJson(text)).toEqual({ value, error: null });
  });
  it('says why nothing could be read', () => {
    expect(extractJson('   ').error).toBe('the answer is empty');
    expect(extractJson('no json here').error).toBe('the answer is not JSON');
  });
  it('takes usage and session_id from beside the result', () => {
    expect(splitAnswer({ status: 'completed', usage: { uncached_input: 3, output: 2 }, session_id: 's1' })).toEqual({
      result: { status: 'completed' }, usage: { uncached_input: 3, cache_read: 0, cache_write: 0, output: 2, reasoning: 0 }, session_id: 's1',
    });
  });
});

describe('lifecycle rules', () => {
  it('refuses a send while running (conflict, naming the command) and after close (invalid)', () => {
    const running = (() => { try { assertCanSend(thread({ state: 'running', active_command: 'c-9' })); } catch (e) { return e as HolonError; } })();
    expect(running).toMatchObject({ kind: 'conflict', exitCode: 5 });
    expect(running!.message).toContain('c-9');
    expect(() => assertCanSend(thread({ state: 'closed' }))).toThrow(/is closed/);
    for (const s of ['idle', 'blocked', 'compacted'] as const) expect(() => assertCanSend(thread({ state: s }))).not.toThrow();
  });
  it('a blocked result blocks the thread; others leave it idle', () => {
    expect(stateAfter({ status: 'blocked', summary: 's', ready_for_next: false })).toBe('blocked');
    expect(stateAfter({ status: 'failed', summary: 's', ready_for_next: false })).toBe('idle');
    expect(stateAfter(null)).toBe('idle');
  });
  it('sums token use, counting missing reports as zero', () => {
    expect(sumUsage([{ uncached_input: 1, cache_read: 2, cache_write: 3, output: 4 }, null, { uncached_input: 10, cache_read: 20, cache_write: 30, output: 40 }])).toEqual({ uncached_input: 11, cache_read: 22, cache_write: 33, output: 44, reasoning: 0 });
  });
  it("gives a resumed session's totals so far from its earlier commands' own figures", () => {
    const u = (n: number) => ({ uncached_input: n, cache_read: 10 * n, cache_write: 0, output: n, reasoning: 0 });
    expect(sessionTotalsBefore([])).toBeNull();
    expect(sessionTotalsBefore([{ usage: u(1), cost_usd: 0.1 }, { usage: null, cost_usd: null }, { usage: u(2), cost_usd: 0.2 }])).toEqual({ tokens: u(3), cost_usd: 0.3 });
    expect(sessionTotalsBefore([{ usage: null, cost_usd: null }])).toEqual({ tokens: null, cost_usd: null });
  });
});

describe('what the child is given', () => {
  it('the context policy decides how much of earlier commands it sees', () => {
    const earlier = [command(1), command(2)];
    expect(historyFor('full', earlier)[1]).toMatchObject({ id: 'c-2', result: { summary: 'did 2', files_changed: ['a.ts'] } });
    expect(historyFor('summaries', earlier)[1]).toEqual({ id: 'c-2', seq: 2, objective: 'step 2', status: 'finished', result: { status: 'completed', summary: 'did 2' } });
    expect(historyFor('none', earlier)).toEqual([]);
  });
  it('the command runner gets the thread with its policy, this command within the thread scope, and earlier ones', () => {
    const input = commandInput(thread(), command(3), [command(1)], 'ck text');
    expect(input).toMatchObject({ op: 'command', thread: { id: 'th-aaaaaaaa', role: 'grid specialist', checkpoint: 'ck text', policy: { scope: ['src/grid/**'] } }, command: { id: 'c-3', scope: ['src/grid/**'] } });
    expect(input.history.map((h) => h.id)).toEqual(['c-1']);
  });
  it('a fresh session prompt carries the checkpoint; a resumed one does not repeat it', () => {
    const t = thread({ checkpoint: 'ck-1', session: 2 });
    expect(threadPrompt(t, command(3), 'four invariants', true)).toContain('four invariants');
    const resumed = threadPrompt(t, command(3), 'four invariants', false);
    expect(resumed).not.toContain('four invariants');
    expect(resumed).toContain('Do only this command');
    expect(resumed).toContain('write scope: src/grid/**');
  });
});

describe('paths in a write scope', () => {
  it.each([
    ['src/grid/a.ts', 'src/grid/**', true],
    ['src/grid/deep/a.ts', 'src/grid/**', true],
    ['src/grid/a.ts', 'src/grid', true],
    ['src/gridx/a.ts', 'src/grid', false],
    ['src/grid/a.ts', 'src/*/a.ts', true],
    ['src/grid/a.ts', 'src/**/a.ts', true],
    ['src/grid/b.ts', 'src/**/a.ts', false],
    ['docs/x.md', 'docs/*.md', true],
    ['docs/sub/x.md', 'docs/*.md', false],
    ['README.md', 'src/**', false],
  ])('%s in %s: %s', (path, glob, inside) => {
    expect(pathInGlob(path, glob)).toBe(inside);
  });
  it('lists what falls outside every glob; an empty scope allows everything', () => {
    expect(outsideScope(['src/grid/a.ts', 'README.md'], ['src/grid/**', 'docs/**'])).toEqual(['README.md']);
    expect(outsideScope(['README.md'], [])).toEqual([]);
  });
});

describe('thread waits', () => {
  it('parses thread:th-... and thread:c-..., and only thread events settle them', () => {
    expect(parseWaitFor('thread:th-4f2a9c1k')).toEqual({ kind: 'thread', resource: 'th-4f2a9c1k' });
    expect(parseWaitFor('thread:c-4f2a9c1k')).toEqual({ kind: 'thread', resource: 'c-4f2a9c1k' });
    expect(() => parseWaitFor('thread:')).toThrow(/thread id/);
    expect(() => parseWaitFor('thread:w-1')).toThrow(/thread id/);
    expect(sourceMaySettle('thread', 'thread')).toBe(true);
    expect(sourceMaySettle('external', 'thread')).toBe(false);
    expect(sourceMaySettle('thread', 'task')).toBe(false);
  });
});
