import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HolonError } from '../core/errors.js';
import { parseNotifyInput } from '../core/ingress-body.js';
import { parseListen, urlHost } from '../core/listen-address.js';
import { enqueueEvent } from '../store/events.js';
import type { Home } from '../store/home.js';
import { matchToken, readTokens } from '../store/ingress-tokens.js';

export const MAX_BODY = 256 * 1024;
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

export interface IngressServer {
  server: Server;
  address: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  const text = JSON.stringify(body) + '\n';
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Reads the body up to MAX_BODY; null when it is larger (reading stops at once). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY) return resolve(null);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY) {
        over = true;
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => !over && resolve(Buffer.concat(chunks)));
    req.on('error', (e) => !over && reject(e));
  });
}

/**
 * `POST /hooks/<token>` with {resource, mode, payload}: the event is written to the token's agent's
 * inbox (source external, provenance ingress:<token id>) before the 202 answer, so an accepted event
 * survives any crash. The token never appears in logs or answers.
 */
export function startIngress(home: Home, listen: string, onEvent: (agent: string, eventId: string) => void, log: (line: string) => void): Promise<IngressServer> {
  const { host, port } = parseListen(listen);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const m = /^\/hooks\/([A-Za-z0-9_-]{1,200})\/?$/.exec(path);
    if (!m) return send(res, 404, { error: 'not found', fix: 'POST /hooks/<token>; get the URL with `holon ingress url`' });
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return send(res, 405, { error: `method ${req.method} not allowed`, fix: 'use POST' });
    }
    const token = matchToken(readTokens(home), m[1]);
    if (!token) {
      req.resume();
      return send(res, 403, { error: 'unknown or revoked token', fix: 'get a current URL with `holon ingress url` or `holon ingress rotate`' });
    }
    const body = await readBody(req);
    if (body === null) {
      // Nothing more is kept; the rest is discarded so the client can read the answer (closing on it
      // would reset the connection and lose the 413), but for a few seconds at most.
      const cut = setTimeout(() => req.socket.destroy(), 5000);
      cut.unref();
      req.on('end', () => clearTimeout(cut));
      req.resume();
      return send(res, 413, { error: `body over ${MAX_BODY} bytes` });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return send(res, 400, { error: 'body is not valid JSON', fix: 'send {"resource": "...", "mode": "wake_hint"|"message", "payload": ...}' });
    }
    let input;
    try {
      input = parseNotifyInput(parsed);
    } catch (err) {
      if (err instanceof HolonError) return send(res, 400, { error: err.message, fix: err.hint ?? null });
      throw err;
    }
    const ev = enqueueEvent(home, token.agent, { source: 'external', mode: input.mode, resource: input.resource, payload: input.payload, work_item: input.work_item, provenance: `ingress:${token.id}` }, Date.now());
    send(res, 202, { event: ev.id, agent: token.agent, status: 'queued' });
    onEvent(token.agent, ev.id);
  };
  // Slow clients are cut by these, not by Node's defaults (minutes): headers within 10 s, the whole
  // request within 30 s, checked every second.
  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000 }, (req, res) => {
    handle(req, res).catch((err) => {
      log(`ingress: request failed: ${(err as Error).message}`);
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
    });
  });
  server.keepAliveTimeout = 5000;
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new HolonError('conflict', `ingress address ${host}:${port} is in use`, { hint: 'pass --listen 127.0.0.1:PORT with a free port (0 picks one)' }) : err),
    );
    server.listen(port, host, () => {
      const a = server.address();
      const bound = typeof a === 'object' && a ? a.port : port;
      resolve({
        server,
        address: `${urlHost(host)}:${bound}`,
        close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections?.(); }),
      });
    });
  });
}
