import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaudeOutput, parseCodexOutput, perRun, type RunnerReport } from '../../src/core/runner-output.js';

/**
 * Outputs of the real CLIs (Claude Code 2.1.332 with `-p --output-format stream-json --verbose`,
 * codex-cli 0.171.0 with `exec --json`, holon's preset flags) against the test tier's stand-ins,
 * captured by test/agents/capture.mjs. Each scripted run made two model requests with usages
 * U1 = {input 1200, cache_read 300, cache_write 800, output 40, reasoning 12} and
 * U2 = {input 30, cache_read 2200, cache_write 0, output 12, reasoning 0}.
 */
const real = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/runners/real', name), 'utf8');
const parse = (name: string): RunnerReport => (name.startsWith('claude') ? parseClaudeOutput : parseCodexOutput)(real(name));

// Claude's output figure has no reasoning from a stand-in that streams no thinking; codex's includes it.
const CLAUDE_RUN = { uncached_input: 1230, cache_read: 2500, cache_write: 800, output: 52, reasoning: 0 };
const CODEX_RUN = { uncached_input: 1230, cache_read: 2500, cache_write: 800, output: 64, reasoning: 12 };
const NONE = { uncached_input: 0, cache_read: 0, cache_write: 0, output: 0, reasoning: 0 };

describe.each<[string, Partial<RunnerReport>, RegExp | null, RegExp | null]>([
  // file, report facts, error, first problem
  ['claude-ok.jsonl', { ok: true, outside: false, tokens: CLAUDE_RUN, cost_usd: 0.01046, problems: [] }, null, null],
  ['claude-denied.jsonl', { ok: true, outside: false, tokens: CLAUDE_RUN }, null, /^denied: Bash\(curl -s http:\/\/127\.0\.0\.1:9\/status\)/],
  ['claude-not-found.jsonl', { ok: true, outside: false }, null, /holon: command not found \(in: holon progress w-abc123 "read the diff"\)/],
  ['claude-http-500.jsonl', { ok: false, outside: true, tokens: NONE, cost_usd: 0, problems: [] }, /^API Error: 500 stand-in HTTP 500/, null],
  ['claude-http-429.jsonl', { ok: false, outside: true, tokens: NONE, problems: [] }, /^API Error: Request rejected \(429\)/, null],
  ['claude-malformed.jsonl', { ok: false, outside: true, problems: [] }, /^API error: the model's answer came back empty/, null],
  ['claude-malformed-recovered.jsonl', { ok: true, outside: false, result: 'Nothing more to do.' }, null, null],
  ['codex-ok.jsonl', { ok: true, outside: false, tokens: CODEX_RUN, cost_usd: null, problems: [] }, null, null],
  ['codex-login-shell.jsonl', { ok: true, outside: false, tokens: CODEX_RUN }, null, /holon: command not found \(in: \/bin\/bash -lc 'holon progress w-abc123 "read the diff"'\)/],
  ['codex-http-500.jsonl', { ok: false, outside: true, tokens: null, problems: [] }, /high demand/, null],
  ['codex-http-429.jsonl', { ok: false, outside: true, tokens: null }, /^exceeded retry limit, last status: 429 Too Many Requests$/, null],
  ['codex-malformed.jsonl', { ok: false, outside: true, tokens: null }, /^stream disconnected before completion/, null],
  // The model API unreachable, the CLI killed after 6 s (as a run timeout does).
  ['claude-api-down.jsonl', { ok: false, outside: true, tokens: null }, /^API error: Claude Code was still retrying the model API \(attempt 4 of 10: no answer \(unknown\)\)$/, null],
  ['codex-api-down.jsonl', { ok: false, outside: true, tokens: null }, /^Reconnecting\.\.\. waiting for network \(Connection failed: error sending request\)$/, null],
])('%s', (name, facts, error, problem) => {
  it('reports what the run did', () => {
    const r = parse(name);
    expect(r).toMatchObject(facts);
    expect(r.session_id).toMatch(/^[0-9a-f-]{36}$/);
    if (error) expect(r.error).toMatch(error);
    else expect(r.error).toBeNull();
    if (problem) expect(r.problems[0]).toMatch(problem);
    for (const line of [r.error ?? '', ...r.problems]) expect(line).not.toMatch(/\n/);
  });
});

describe('per-run figures from session totals', () => {
  it('codex: a resumed thread prints its running total; the run used the difference', () => {
    const first = parse('codex-ok.jsonl');
    const again = parse('codex-resumed.jsonl');
    expect(again.session_id).toBe(first.session_id);
    expect(again.tokens).toEqual({ uncached_input: 2460, cache_read: 5000, cache_write: 1600, output: 128, reasoning: 24 });
    const r = perRun(again, first.totals);
    expect(r.tokens).toEqual(CODEX_RUN);
    expect(r.totals.tokens).toEqual(again.tokens);
  });
  it('claude: usage is per run, total_cost_usd covers the session', () => {
    const first = parse('claude-ok.jsonl');
    const again = parse('claude-resumed.jsonl');
    expect(again.session_id).toBe(first.session_id);
    expect(again.tokens).toEqual(CLAUDE_RUN);
    expect(again.cost_usd).toBeCloseTo(0.02092, 10);
    const r = perRun(again, first.totals);
    expect(r.tokens).toEqual(CLAUDE_RUN);
    expect(r.cost_usd).toBe(0.01046);
    expect(r.totals.cost_usd).toBeCloseTo(0.02092, 10);
  });
  it('a failed run keeps the remembered totals, and a new session needs none', () => {
    const first = parse('codex-ok.jsonl');
    const failed = perRun(parse('codex-http-500.jsonl'), first.totals);
    expect(failed.tokens).toBeNull();
    expect(failed.totals.tokens).toEqual(first.totals.tokens);
    const claudeFailed = perRun(parse('claude-http-500.jsonl'), { tokens: null, cost_usd: 0.5 });
    expect(claudeFailed).toMatchObject({ cost_usd: 0, totals: { cost_usd: 0.5 } });
    expect(perRun(first, null)).toBe(first);
  });
});
