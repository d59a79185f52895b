/**
 * What a runner reports about one run, parsed from its output: the session (Claude) or thread (Codex)
 * id to resume next time, success or error, what went wrong inside the run, token use and cost. Pure:
 * takes the captured stdout text (and, for per-run figures, the totals remembered with the session).
 */

/**
 * Token use normalized across runners: input not served from cache, cache reads, cache writes, output,
 * and reasoning. `reasoning` is PART OF `output` (both CLIs count thinking/reasoning tokens inside their
 * output figure); it is shown apart, never added to it.
 */
export interface TokenUse {
  uncached_input: number;
  cache_read: number;
  cache_write: number;
  output: number;
  reasoning: number;
}

/** The running totals of a session as its runner reports them, remembered with the session. */
export interface SessionTotals {
  /** Codex: turn.completed usage of a resumed thread is the thread's total. Claude: per run (null here). */
  tokens: TokenUse | null;
  /** Claude: total_cost_usd on --resume covers the whole session. Codex reports no cost (null). */
  cost_usd: number | null;
}

export interface RunnerReport {
  session_id: string | null;
  ok: boolean;
  error: string | null;
  /** This run's token use (after `perRun`; a parser alone gives what the runner printed). */
  tokens: TokenUse | null;
  cost_usd: number | null;
  /** The agent's final message, when the runner prints one. */
  result: string | null;
  /** What went wrong inside the run, one line each: denied tool calls, `command not found`, tool errors. */
  problems: string[];
  /** The run failed for a reason outside the agent: API error, HTTP 5xx/429, a broken stream, a timeout of the API. */
  outside: boolean;
  /** The session's running totals as printed, for the next run's delta. */
  totals: SessionTotals;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const oneLine = (s: string, max = 300): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

function jsonLines(text: string): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      const v = JSON.parse(t);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v);
    } catch {
      // noise between events
    }
  }
  return out;
}

/** The result object of `claude -p`: the whole text (`json`), or the last `type: result` line (`stream-json`). */
function claudeResult(text: string, events: Record<string, any>[]): Record<string, any> | null {
  try {
    const v = JSON.parse(text.trim());
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
  } catch {
    // stream-json, or noise before the result
  }
  for (let i = events.length - 1; i >= 0; i--) if (events[i].type === 'result') return events[i];
  return null;
}

/** Tool output that says the tool could not run at all: worth showing whatever the agent made of it. */
function toolProblem(command: string, output: string): string | null {
  const m = output.match(/^.*(command not found|permission denied|read-only file system|no such file or directory|operation not permitted).*$/im);
  if (!m) return null;
  return oneLine(`${m[0].trim()} (in: ${command})`);
}

/**
 * The API failure Claude Code was retrying when its output ends (its last event is an `api_retry`
 * system event), in one line, or null.
 */
function retryingApi(events: any[]): string | null {
  const last = events.at(-1);
  if (last?.type !== 'system' || last.subtype !== 'api_retry') return null;
  const failure = last.error_status != null ? `HTTP ${last.error_status}` : `no answer${typeof last.error === 'string' ? ` (${last.error})` : ''}`;
  return oneLine(`API error: Claude Code was still retrying the model API (attempt ${last.attempt ?? '?'} of ${last.max_retries ?? '?'}: ${failure})`);
}

/**
 * `claude -p ... --output-format stream-json --verbose` (or `json`): the result object, plus, in
 * stream-json, the tool calls and their results. Claude's `input_tokens` excludes the cache, so it is
 * the uncached input as is; `usage` covers this run only, while `total_cost_usd` on `--resume` covers
 * the whole session (checked against Claude Code 2.1.332).
 */
export function parseClaudeOutput(stdout: string): RunnerReport {
  const events = jsonLines(stdout);
  const r = claudeResult(stdout, events);
  const problems: string[] = [];
  const commands = new Map<string, string>();
  // Claude Code skips stream events it cannot parse; an answer that lost all of them looks empty, and it
  // asks again with a synthetic user message. A run that ends that way got nothing from the model.
  let empty = 0;
  for (const ev of events) {
    const content = Array.isArray(ev.message?.content) ? ev.message.content : [];
    if (ev.type === 'user' && ev.isSynthetic === true && content.some((c: any) => typeof c?.text === 'string' && /no visible output/i.test(c.text))) empty++;
    for (const c of content) {
      if (ev.type === 'assistant' && c?.type === 'tool_use' && typeof c.id === 'string') commands.set(c.id, c.name === 'Bash' && typeof c.input?.command === 'string' ? c.input.command : String(c.name));
      if (ev.type === 'user' && c?.type === 'tool_result' && c.is_error === true) {
        const text = typeof c.content === 'string' ? c.content : Array.isArray(c.content) ? c.content.map((x: any) => x?.text ?? '').join('\n') : '';
        const p = toolProblem(commands.get(c.tool_use_id) ?? 'a tool', text);
        if (p) problems.push(p);
      }
    }
  }
  if (!r) {
    // Killed (e.g. by the run timeout) while Claude Code was still retrying the model API: the API failed.
    const retrying = retryingApi(events);
    return { session_id: str(events.find((e) => e.session_id)?.session_id), ok: false, error: retrying ?? 'no JSON result from claude (is --output-format honoured?)', tokens: null, cost_usd: null, result: null, problems, outside: retrying !== null, totals: { tokens: null, cost_usd: null } };
  }
  for (const d of Array.isArray(r.permission_denials) ? r.permission_denials : []) {
    const input = d?.tool_input ?? {};
    const what = typeof input.command === 'string' ? `${d.tool_name}(${input.command})` : typeof input.file_path === 'string' ? `${d.tool_name}(${input.file_path})` : String(d?.tool_name ?? 'a tool');
    problems.push(oneLine(`denied: ${what} (allow it in runner args, e.g. --allowedTools)`));
  }
  const usage = r.usage as Record<string, any> | undefined;
  const lostAnswer = empty > 0 && !str(r.result);
  const isError = r.is_error === true || (typeof r.subtype === 'string' && r.subtype !== 'success') || lostAnswer;
  const apiError = r.terminal_reason === 'api_error' || r.api_error_status != null || lostAnswer;
  const why = lostAnswer
    ? `the model's answer came back empty ${empty === 1 ? 'once' : `${empty} times`} and the run ended with no result (a broken stream? see "Could not parse" in the run log)`
    : typeof r.result === 'string' && r.result
      ? r.result
      : String(r.terminal_reason ?? r.subtype ?? 'error');
  const cost = typeof r.total_cost_usd === 'number' ? r.total_cost_usd : null;
  return {
    session_id: str(r.session_id),
    ok: !isError,
    error: isError ? oneLine(`${apiError ? (/^API Error/i.test(why) ? '' : 'API error: ') : `${String(r.subtype === 'success' ? (r.terminal_reason ?? 'error') : r.subtype)}: `}${why}`) : null,
    tokens: usage
      ? {
          uncached_input: num(usage.input_tokens),
          cache_read: num(usage.cache_read_input_tokens),
          cache_write: num(usage.cache_creation_input_tokens),
          output: num(usage.output_tokens),
          reasoning: num(usage.output_tokens_details?.thinking_tokens),
        }
      : null,
    cost_usd: cost,
    result: str(r.result),
    problems,
    outside: isError && apiError,
    totals: { tokens: null, cost_usd: cost },
  };
}

/**
 * `codex exec --json`: JSONL events. The thread id comes from thread.started; usage from the last
 * turn.completed, which on a resumed thread is the thread's running total (checked against codex-cli
 * 0.171.0), so the parser reports it as the session total and `perRun` takes the difference. Codex's
 * `input_tokens` includes `cached_input_tokens` and `cache_write_input_tokens`; its `output_tokens`
 * includes `reasoning_output_tokens`. Codex reports no cost. A turn.failed is the model API failing
 * (HTTP errors after codex's own retries, a broken stream): outside the agent.
 */
export function parseCodexOutput(stdout: string): RunnerReport {
  let threadId: string | null = null;
  let tokens: TokenUse | null = null;
  let completed = false;
  let error: string | null = null;
  let result: string | null = null;
  const problems: string[] = [];
  for (const ev of jsonLines(stdout)) {
    switch (ev.type) {
      case 'thread.started':
        threadId = str(ev.thread_id) ?? threadId;
        break;
      case 'turn.completed': {
        completed = true;
        error = null;
        const u = (ev.usage ?? {}) as Record<string, unknown>;
        const cached = num(u.cached_input_tokens);
        const written = num(u.cache_write_input_tokens);
        tokens = { uncached_input: Math.max(0, num(u.input_tokens) - cached - written), cache_read: cached, cache_write: written, output: num(u.output_tokens), reasoning: num(u.reasoning_output_tokens) };
        break;
      }
      case 'turn.failed':
        completed = false;
        error = str(ev.error?.message) ?? 'turn failed';
        break;
      case 'error':
        error ??= str(ev.message) ?? 'error';
        break;
      case 'item.completed': {
        const item = ev.item ?? {};
        if (item.type === 'agent_message') result = str(item.text) ?? result;
        if (item.type === 'command_execution' && typeof item.exit_code === 'number' && item.exit_code !== 0) {
          const p = toolProblem(String(item.command ?? 'a command'), String(item.aggregated_output ?? ''));
          if (p) problems.push(p);
          else if (item.exit_code === 126 || item.exit_code === 127) problems.push(oneLine(`exit ${item.exit_code} (in: ${item.command})`));
        }
        break;
      }
    }
  }
  const failed = !completed;
  const outside = failed && error !== null;
  if (failed && error === null) error = threadId ? 'codex ended without turn.completed' : 'no JSONL events from codex (is --json honoured?)';
  return { session_id: threadId, ok: !failed, error: failed ? oneLine(error!) : null, tokens, cost_usd: null, result, problems, outside, totals: { tokens, cost_usd: null } };
}

const minus = (a: TokenUse, b: TokenUse): TokenUse => ({
  uncached_input: a.uncached_input - b.uncached_input,
  cache_read: a.cache_read - b.cache_read,
  cache_write: a.cache_write - b.cache_write,
  output: a.output - b.output,
  reasoning: a.reasoning - b.reasoning,
});

/**
 * This run's figures from what the runner printed and the totals remembered after the session's last
 * run (null for a new session), and the totals to remember now. Within one session the totals only
 * grow: a printed total below the one remembered (an error result that prints 0, a restarted count)
 * is taken as this run's figure, and the remembered total is kept for the next run.
 */
export function perRun(report: RunnerReport, prior: SessionTotals | null): RunnerReport {
  if (!prior) return report;
  let tokens = report.tokens;
  let cost = report.cost_usd;
  const totals: SessionTotals = { ...report.totals };
  if (prior.tokens) {
    const d = report.totals.tokens ? minus(report.totals.tokens, prior.tokens) : null;
    if (d && Object.values(d).every((v) => v >= 0)) tokens = d;
    else totals.tokens = prior.tokens;
  }
  if (prior.cost_usd != null) {
    if (report.totals.cost_usd != null && report.totals.cost_usd >= prior.cost_usd) {
      // Rounded: the difference of two floats must not print as 0.000814000000000001.
      cost = Math.round((report.totals.cost_usd - prior.cost_usd) * 1e10) / 1e10;
    } else totals.cost_usd = prior.cost_usd;
  }
  return { ...report, tokens, cost_usd: cost, totals };
}
