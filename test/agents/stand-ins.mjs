// Loopback stand-ins for the model APIs the real agent CLIs call: the Anthropic Messages API (claude)
// and the OpenAI Responses API (codex). Each answers a script of turns, one per model request of the
// agent's main loop; side requests (Claude Code's title or quota queries, anything without tools) get a
// short harmless answer and do not use up a turn. Every request is recorded.
//
// A turn is one of:
//   { shell: 'holon progress w-1 "x"', usage }   the model calls its shell tool (Bash / exec) with it
//   { tool: { name, input }, usage }              the model calls another tool, e.g. Write or mcp__holon__wait
//                                                  (OpenAI: { name: 'wait', namespace: 'mcp__holon', input } for an MCP tool)
//   { text: 'done', usage }                       the model answers text and ends its turn
//   { fail: 500 } | { fail: 429 }                 HTTP error with an API error body
//   { malformed: true }                            a 200 event stream that breaks off with garbage
//   { hang: true }                                 accepts the request and never answers
// An outage (`outage(turn)`) answers every main request with that failing turn, script untouched,
// until `outage(null)`: how a test makes the API fail for as many requests as the CLI and its retries
// send, then healthy again.
// usage: { input, cache_read, cache_write, output, reasoning } (all optional, default 0; input is the
// uncached input as Anthropic counts it; the OpenAI stand-in reports input + cache_read + cache_write as
// input_tokens and output + reasoning as output_tokens, as the Responses API counts them).
import { createServer } from 'node:http';

const DEFAULT_TEXT = { text: 'Nothing more to do.' };

function base(kind, turns, isMain) {
  const requests = [];
  const script = [...turns];
  const hanging = new Set();
  let down = null;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      let json = null;
      try {
        json = body ? JSON.parse(body) : null;
      } catch {
        json = null;
      }
      const main = req.method === 'POST' && isMain(req.url, json);
      const entry = { method: req.method, url: req.url, headers: req.headers, body: json, raw: json ? null : body, main };
      requests.push(entry);
      const turn = main ? (down ?? script.shift() ?? DEFAULT_TEXT) : null;
      entry.turn = turn;
      try {
        handlers[kind](req, res, json, turn, hanging);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        requests,
        /** Model requests of the agent's main loop (the ones that use up turns). */
        get mainRequests() {
          return requests.filter((r) => r.main);
        },
        /** Turns not yet answered. */
        get remaining() {
          return script.length;
        },
        push(...more) {
          script.push(...more);
        },
        /** Every main request fails with `turn` (a { fail } / { malformed } / { hang } turn) until outage(null). */
        outage(turn) {
          down = turn;
        },
        close() {
          for (const r of hanging) r.destroy();
          server.closeAllConnections?.();
          return new Promise((r) => server.close(() => r()));
        },
      });
    });
  });
}

const sse = (res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
};

function httpError(res, kind, status) {
  const headers = { 'content-type': 'application/json', 'retry-after': '0' };
  if (kind === 'anthropic') {
    const type = status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error';
    res.writeHead(status, headers);
    res.end(JSON.stringify({ type: 'error', error: { type, message: `stand-in HTTP ${status}` } }));
  } else {
    res.writeHead(status, headers);
    res.end(JSON.stringify({ error: { type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: status === 429 ? 'rate_limit_exceeded' : 'server_error', message: `stand-in HTTP ${status}` } }));
  }
}

let seq = 0;
const handlers = {
  anthropic(req, res, body, turn, hanging) {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || !path.startsWith('/v1/messages')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    if (path.endsWith('/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    const t = turn ?? DEFAULT_TEXT;
    if (t.hang) return void hanging.add(res.socket);
    if (t.fail) return httpError(res, 'anthropic', t.fail);
    const u = t.usage ?? {};
    const usage = { input_tokens: u.input ?? 0, cache_creation_input_tokens: u.cache_write ?? 0, cache_read_input_tokens: u.cache_read ?? 0, output_tokens: u.output ?? 0 };
    const id = `msg_standin_${++seq}`;
    const model = body?.model ?? 'claude-stand-in';
    const content = t.shell
      ? [{ type: 'tool_use', id: `toolu_standin_${seq}`, name: 'Bash', input: { command: t.shell, description: 'Record progress with holon' } }]
      : t.tool
        ? [{ type: 'tool_use', id: `toolu_standin_${seq}`, name: t.tool.name, input: t.tool.input }]
        : [{ type: 'text', text: t.text ?? '' }];
    const stop = t.shell || t.tool ? 'tool_use' : 'end_turn';
    if (!body?.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage }));
      return;
    }
    const send = sse(res);
    send('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
    if (t.malformed) {
      res.write('event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_blo\n\nthis is not an event stream\n\n');
      res.end();
      return;
    }
    content.forEach((c, index) => {
      if (c.type === 'text') {
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: c.text } });
      } else {
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } });
      }
      send('content_block_stop', { type: 'content_block_stop', index });
    });
    send('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    send('message_stop', { type: 'message_stop' });
    res.end();
  },

  openai(req, res, body, turn, hanging) {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `stand-in: no ${req.method} ${path}` } }));
      return;
    }
    const t = turn ?? DEFAULT_TEXT;
    if (t.hang) return void hanging.add(res.socket);
    if (t.fail) return httpError(res, 'openai', t.fail);
    const u = t.usage ?? {};
    const id = `resp_standin_${++seq}`;
    const send = sse(res);
    send('response.created', { type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } });
    if (t.malformed) {
      res.write('event: response.output_item.done\ndata: {"type":"response.output_item.done","item":{"type":"mess\n\nthis is not an event stream\n\n');
      res.end();
      return;
    }
    const tools = Array.isArray(body?.tools) ? body.tools : [];
    const item = t.tool ? toolCall(t.tool) : t.shell ? shellCall(tools, t.shell) : { type: 'message', id: `msg_${seq}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: t.text ?? '', annotations: [] }] };
    if (item.type === 'message') {
      send('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { ...item, content: [] } });
      send('response.output_text.delta', { type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: item.id, delta: t.text ?? '' });
    }
    send('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
    const usage = {
      input_tokens: (u.input ?? 0) + (u.cache_read ?? 0) + (u.cache_write ?? 0),
      input_tokens_details: { cached_tokens: u.cache_read ?? 0, cache_write_tokens: u.cache_write ?? 0 },
      output_tokens: (u.output ?? 0) + (u.reasoning ?? 0),
      output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
      total_tokens: (u.input ?? 0) + (u.cache_read ?? 0) + (u.cache_write ?? 0) + (u.output ?? 0) + (u.reasoning ?? 0),
    };
    send('response.completed', { type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage } });
    res.end();
  },
};

/** A call of another tool; codex offers an MCP server's tools in a namespace (mcp__SERVER) and reads it back. */
function toolCall({ name, input, namespace }) {
  return { type: 'function_call', id: `fc_${seq}`, call_id: `call_standin_${seq}`, name, ...(namespace ? { namespace } : {}), arguments: JSON.stringify(input ?? {}) };
}

/** The function call for the shell tool the request offers (codex names and shapes it per version). */
function shellCall(tools, command) {
  const names = tools.map((x) => x.name ?? x.function?.name).filter(Boolean);
  const call_id = `call_standin_${seq}`;
  if (names.includes('exec_command')) return { type: 'function_call', id: `fc_${seq}`, call_id, name: 'exec_command', arguments: JSON.stringify({ cmd: command }) };
  if (names.includes('shell_command')) return { type: 'function_call', id: `fc_${seq}`, call_id, name: 'shell_command', arguments: JSON.stringify({ command }) };
  return { type: 'function_call', id: `fc_${seq}`, call_id, name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }) };
}

/** Anthropic Messages stand-in. Main-loop requests are the ones offering the Bash tool. */
export const startAnthropic = (turns = []) => base('anthropic', turns, (url, body) => (url ?? '').split('?')[0] === '/v1/messages' && Array.isArray(body?.tools) && body.tools.some((t) => t.name === 'Bash'));

/** OpenAI Responses stand-in. Main-loop requests are POST .../responses. */
export const startOpenAI = (turns = []) => base('openai', turns, (url) => (url ?? '').split('?')[0].endsWith('/responses'));
