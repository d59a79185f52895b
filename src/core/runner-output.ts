/**
 * What a runner reports about one run, parsed from its output: the session (Claude) or thread (Codex)
 * id to resume next time, success or error, token use and cost. Pure: takes the captured stdout text.
 */

/** Token use normalized across runners: input not served from cache, cache reads, cache writes, output. */
export interface TokenUse {
  uncached_input: number;
  cache_read: number;
  cache_write: number;
  output: number;
  /** Reasoning tokens, when the runner reports them apart (part of `output` or not, as the runner counts). */
  reasoning?: number;
}

export interface RunnerReport {
  session_id: string | null;
  ok: boolean;
  error: string | null;
  tokens: TokenUse | null;
  cost_usd: number | null;
  /** The agent's final message, when the runner prints one. */
  result: string | null;
  /** One-line problems seen in the run: denied tool calls, `command not found`. */
  problems?: string[];
  /** The run failed for a reason outside the agent: API error, HTTP 5xx/429, a broken stream. */
  outside?: boolean;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The last JSON object in a text (Claude prints one; tolerate log lines before it). */
function lastJsonObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  try {
    const v = JSON.parse(trimmed);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // Not one object: try line by line from the end (stream-json or noise before the result).
  }
  const lines = trimmed.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line.startsWith('{')) continue;
    try {
      const v = JSON.parse(line);
      if (v && typeof v === 'object' && (v as Record<string, unknown>).type === 'result') return v as Record<string, unknown>;
    } catch {
      // keep looking
    }
  }
  return null;
}

/**
 * `claude -p ... --output-format json`: one result object. Claude's `input_tokens` excludes the cache,
 * so it is the uncached input as is.
 */
export function parseClaudeOutput(stdout: string): RunnerReport {
  const r = lastJsonObject(stdout);
  if (!r) return { session_id: null, ok: false, error: 'no JSON result from claude (is --output-format json honoured?)', tokens: null, cost_usd: null, result: null };
  const usage = r.usage as Record<string, unknown> | undefined;
  const isError = r.is_error === true || (typeof r.subtype === 'string' && r.subtype !== 'success');
  return {
    session_id: str(r.session_id),
    ok: !isError,
    error: isError ? `${String(r.subtype ?? 'error')}${typeof r.result === 'string' && r.result ? `: ${r.result.slice(0, 300)}` : ''}` : null,
    tokens: usage
      ? {
          uncached_input: num(usage.input_tokens),
          cache_read: num(usage.cache_read_input_tokens),
          cache_write: num(usage.cache_creation_input_tokens),
          output: num(usage.output_tokens),
        }
      : null,
    cost_usd: typeof r.total_cost_usd === 'number' ? r.total_cost_usd : null,
    result: str(r.result),
  };
}

/**
 * `codex exec --json`: JSONL events. The thread id comes from thread.started; usage from each
 * turn.completed (summed). Codex's `input_tokens` includes `cached_input_tokens`, so uncached is the
 * difference. Codex reports no cost.
 */
export function parseCodexOutput(stdout: string): RunnerReport {
  let threadId: string | null = null;
  let tokens: TokenUse | null = null;
  let completed = false;
  let error: string | null = null;
  let result: string | null = null;
  for (const line of stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    let ev: Record<string, any>;
    try {
      ev = JSON.parse(t);
    } catch {
      continue;
    }
    switch (ev.type) {
      case 'thread.started':
        threadId = str(ev.thread_id) ?? threadId;
        break;
      case 'turn.completed': {
        completed = true;
        const u = (ev.usage ?? {}) as Record<string, unknown>;
        const input = num(u.input_tokens);
        const cached = num(u.cached_input_tokens);
        tokens ??= { uncached_input: 0, cache_read: 0, cache_write: 0, output: 0 };
        tokens.uncached_input += Math.max(0, input - cached);
        tokens.cache_read += cached;
        tokens.output += num(u.output_tokens);
        break;
      }
      case 'turn.failed':
        error = str(ev.error?.message) ?? 'turn failed';
        break;
      case 'error':
        error ??= str(ev.message) ?? 'error';
        break;
      case 'item.completed':
        if (ev.item?.type === 'agent_message') result = str(ev.item.text) ?? result;
        break;
    }
  }
  const failed = error !== null && !completed;
  if (!completed && error === null) error = threadId ? 'codex ended without turn.completed' : 'no JSONL events from codex (is --json honoured?)';
  return { session_id: threadId, ok: completed && !failed, error: completed ? null : error, tokens, cost_usd: null, result };
}
