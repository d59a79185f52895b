import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaudeOutput, parseCodexOutput } from '../../src/core/runner-output.js';
import { historyLine, noProgressStreak, type RunRecord } from '../../src/core/run-record.js';
import { parseNotifyInput } from '../../src/core/ingress-body.js';
import { parseListen } from '../../src/core/listen-address.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/runners', name), 'utf8');

describe('claude --output-format json', () => {
  it('reads session, success, tokens (input_tokens is already uncached) and cost', () => {
    const r = parseClaudeOutput(fixture('claude-success.json'));
    expect(r).toMatchObject({ session_id: '0e639165-79b1-4bd4-bb0f-4cb4c15115d4', ok: true, error: null, cost_usd: 0.0873215 });
    expect(r.tokens).toEqual({ uncached_input: 42, cache_read: 51290, cache_write: 6125, output: 1187, reasoning: 0 });
  });
  it('reports an error result with its subtype, keeping session and usage', () => {
    const r = parseClaudeOutput(fixture('claude-error.json'));
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/error_max_turns/);
    expect(r.session_id).toBe('5b7a1c0e-2d3f-4e6a-8b9c-0d1e2f3a4b5c');
    expect(r.tokens).toEqual({ uncached_input: 310, cache_read: 401233, cache_write: 20480, output: 5120, reasoning: 0 });
  });
  it('finds the result after log noise, and fails cleanly on no JSON', () => {
    expect(parseClaudeOutput('warming up\n' + fixture('claude-success.json')).ok).toBe(true);
    const none = parseClaudeOutput('command not found');
    expect(none).toMatchObject({ ok: false, session_id: null, tokens: null });
  });
});

describe('codex exec --json', () => {
  it('reads the thread id and normalizes usage (input_tokens includes cached)', () => {
    const r = parseCodexOutput(fixture('codex-success.jsonl'));
    expect(r).toMatchObject({ session_id: '019a2d7a-41c4-78b1-b7cc-a45d62a89cd5', ok: true, error: null, cost_usd: null });
    expect(r.tokens).toEqual({ uncached_input: 24763 - 24448, cache_read: 24448, cache_write: 0, output: 122, reasoning: 0 });
    expect(r.result).toMatch(/waiting for the author/);
  });
  it('reports turn.failed as an error with the thread id', () => {
    const r = parseCodexOutput(fixture('codex-failed.jsonl'));
    expect(r).toMatchObject({ session_id: '0199a213-81c0-7800-8aa1-bbab2a035a53', ok: false, tokens: null });
    expect(r.error).toMatch(/stream disconnected/);
  });
  it('takes the last turn.completed as the thread total and says when there was no turn.completed', () => {
    const two = '{"type":"thread.started","thread_id":"t1"}\n{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":5}}\n{"type":"turn.completed","usage":{"input_tokens":150,"cached_input_tokens":90,"output_tokens":12}}\n';
    expect(parseCodexOutput(two).tokens).toEqual({ uncached_input: 60, cache_read: 90, cache_write: 0, output: 12, reasoning: 0 });
    expect(parseCodexOutput('{"type":"thread.started","thread_id":"t1"}\n')).toMatchObject({ ok: false, session_id: 't1', outside: false });
  });
});

const run = (over: Partial<RunRecord>): RunRecord => ({
  id: 'r-1', agent: 'a', work_item: 'w-1', reason: 'new_work', reasons: ['new_work'], wakes: [], runner: 'command', watcher_pid: 1, pid: 2,
  started_at: '2026-11-30T05:00:00Z', ended_at: '2026-11-30T05:00:01Z', duration_ms: 1000, status: 'ok', exit_code: 0, signal: null, error: null,
  session_id: null, resumed_session: null, tokens: null, cost_usd: null, revision_before: 1, revision_after: 1, progress: false, blocked: false, resumed_by: null, ...over,
});

describe('no-progress streak', () => {
  it('counts trailing runs that changed nothing, back to the last progress or block', () => {
    expect(noProgressStreak([run({ progress: true }), run({}), run({})])).toBe(2);
    expect(noProgressStreak([run({}), run({ blocked: true }), run({})])).toBe(1);
    expect(noProgressStreak([run({}), run({ progress: null, status: 'interrupted' }), run({})])).toBe(2);
    expect(noProgressStreak([])).toBe(0);
  });
  it('writes one History line with reason, status, tokens and cost', () => {
    const line = historyLine(run({ tokens: { uncached_input: 3, cache_read: 10, cache_write: 2, output: 7, reasoning: 0 }, cost_usd: 0.01, reasons: ['wait_triggered', 'operator_message'] }));
    expect(line).toBe('run r-1 (command, wait_triggered+operator_message): ok, exit 0, 1.0s, tokens 3+10r+2w in, 7 out, $0.0100, no progress');
    expect(line).not.toContain('\n');
  });
});

describe('ingress input and address', () => {
  it('accepts notify-shaped bodies and keeps object payloads as JSON text', () => {
    expect(parseNotifyInput({ resource: 'external:ci:run/7', mode: 'message', payload: { state: 'green' } })).toEqual({ resource: 'external:ci:run/7', mode: 'message', payload: '{"state":"green"}', work_item: null });
    expect(parseNotifyInput({ resource: 'x' }).mode).toBe('wake_hint');
  });
  it('refuses bad resource, mode and work_item', () => {
    expect(() => parseNotifyInput([])).toThrow(/JSON object/);
    expect(() => parseNotifyInput({ mode: 'message' })).toThrow(/resource/);
    expect(() => parseNotifyInput({ resource: 'a\nb' })).toThrow(/spaces or control/);
    expect(() => parseNotifyInput({ resource: 'a', payload: 'x'.repeat(70 * 1024) })).toThrow(/64 KiB/);
    expect(() => parseNotifyInput({ resource: 'a', mode: 'shout' })).toThrow(/mode/);
    expect(() => parseNotifyInput({ resource: 'a', work_item: '../x' })).toThrow(/work_item/);
  });
  it('listens on loopback only', () => {
    expect(parseListen('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListen('[::1]:7420')).toEqual({ host: '::1', port: 7420 });
    expect(parseListen('localhost:80').host).toBe('127.0.0.1');
    expect(() => parseListen('0.0.0.0:7420')).toThrow(/loopback only/);
    expect(() => parseListen('192.168.1.2:7420')).toThrow(/loopback only/);
    expect(() => parseListen('7420')).toThrow(/HOST:PORT/);
  });
});
