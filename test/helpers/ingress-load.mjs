// Sends N POSTs to an ingress URL from its own process, C at a time, within a time budget.
// Usage: node ingress-load.mjs URL N C BUDGET_MS  -> prints {sent, statuses, ids, ms}
import http from 'node:http';

const [url, n, c, budget] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const agent = new http.Agent({ keepAlive: true, maxSockets: c });
const u = new URL(url);
const statuses = {};
const ids = [];
let next = 0;
const t0 = Date.now();

function post(i) {
  const body = JSON.stringify({ resource: `external:load:${i}`, mode: i % 2 ? 'message' : 'wake_hint', payload: i % 2 ? { i } : undefined });
  return new Promise((resolve) => {
    const req = http.request({ agent, host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode === 202) ids.push(JSON.parse(text).event);
        resolve();
      });
    });
    req.on('error', (e) => {
      statuses[e.code ?? 'error'] = (statuses[e.code ?? 'error'] ?? 0) + 1;
      resolve();
    });
    req.end(body);
  });
}

async function worker() {
  while (next < n && Date.now() - t0 < budget) await post(next++);
}
await Promise.all(Array.from({ length: c }, worker));
agent.destroy();
process.stdout.write(JSON.stringify({ sent: next, statuses, ids, ms: Date.now() - t0 }) + '\n');
