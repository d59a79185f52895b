import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { project } from '../helpers/cli.js';
import { startWatch, until } from '../helpers/watch.js';

const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.yaml')) : []);
/** Event files of an agent, queued (inbox/) or already admitted by the watcher (events/). */
const inbox = (home: string, agent: string) => [...ls(join(home, 'agents', agent, 'inbox')), ...ls(join(home, 'agents', agent, 'events'))];
/** The same, while the watcher may be moving one from inbox/ to events/ (written there first, then unlinked). */
const events = (home: string, agent: string) => [...new Set(inbox(home, agent))];
/** An event record's text, from inbox/ or, once the watcher moved it (it may do so between the look and the read), events/. */
function eventText(home: string, agent: string, f: string): string {
  for (let attempt = 0; ; attempt++) {
    for (const dir of ['inbox', 'events']) {
      try {
        return readFileSync(join(home, 'agents', agent, dir, f), 'utf8');
      } catch {
        // Not there (now): the other folder, or another look.
      }
    }
    if (attempt > 100) throw new Error(`no event file ${f} in inbox/ or events/`);
  }
}
const post = (url: string, body: string | Buffer, method = 'POST') => fetch(url, { method, body: method === 'GET' ? undefined : body, headers: { 'content-type': 'application/json' } });

async function watched(agent = 'rev') {
  const p = await project(agent);
  const w = startWatch(p.dir, ['--listen', '127.0.0.1:0']);
  const m = await w.waitFor(/ingress listening on http:\/\/(127\.0\.0\.1:\d+)/);
  return { p, w, base: `http://${m[1]}` };
}

describe('holon ingress', () => {
  it('url creates a token shown once, stored only as a SHA-256 hash in a 0600 file; url again says to rotate', async () => {
    const { p, w, base } = await watched();
    const made = await p.json(['ingress', 'url']);
    expect(made.agent).toBe('rev');
    expect(made.url).toMatch(new RegExp(`^${base}/hooks/[A-Za-z0-9_-]{43}$`));
    const token = made.url.split('/').pop();
    const file = join(p.home, 'local/secrets/ingress.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, 'utf8');
    expect(stored).not.toContain(token);
    expect(JSON.parse(stored).tokens[0]).toMatchObject({ id: made.token_id, agent: 'rev' });
    const again = await p.h(['ingress', 'url']);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('holon ingress rotate');
    expect(again.stdout + again.stderr).not.toContain(token);
    await w.stop();
  });

  it('answers 202 and queues an external event; 403/400/413/405/404 change nothing; the token is never logged', async () => {
    const { p, w, base } = await watched();
    const { url, token_id } = await p.json(['ingress', 'url']);
    const token = url.split('/').pop();
    const ok = await post(url, JSON.stringify({ resource: 'external:github:acme/app#101', mode: 'message', payload: { action: 'synchronize' } }));
    expect(ok.status).toBe(202);
    const { event } = await ok.json();
    const files = events(p.home, 'rev');
    expect(files).toEqual([`${event}.yaml`]);
    const ev = parseYaml(eventText(p.home, 'rev', files[0]));
    expect(ev).toMatchObject({ id: event, agent: 'rev', source: 'external', mode: 'message', resource: 'external:github:acme/app#101', provenance: `ingress:${token_id}`, payload: '{"action":"synchronize"}' });

    const before = events(p.home, 'rev').length;
    expect((await post(`${base}/hooks/${'x'.repeat(43)}`, '{"resource":"a"}')).status).toBe(403);
    expect((await post(url, '{not json')).status).toBe(400);
    expect((await post(url, JSON.stringify({ resource: 'a', mode: 'shout' }))).status).toBe(400);
    expect((await post(url, JSON.stringify({ resource: 'a', payload: 'x'.repeat(300 * 1024) }))).status).toBe(413);
    expect((await post(url, '', 'GET')).status).toBe(405);
    expect((await post(`${base}/other`, '{}')).status).toBe(404);
    expect((await post(`${base}/hooks/`, '{}')).status).toBe(404);
    expect(events(p.home, 'rev').length).toBe(before);
    // `ingress show`: live since its creation, last used by the accepted event; never the token.
    const shown = await p.json(['ingress', 'show']);
    expect(shown).toMatchObject({ agent: 'rev', live: true, token_id, events: 1, last_used_at: ev.created_at, listening: base });
    expect(JSON.stringify(shown)).not.toContain(token);

    // Rotate: the old URL is refused at once, the new one works.
    const rotated = await p.json(['ingress', 'rotate']);
    expect((await post(url, '{"resource":"a"}')).status).toBe(403);
    expect((await post(rotated.url, '{"resource":"a"}')).status).toBe(202);
    // Revoke, and agent stop, leave no working URL.
    expect((await p.json(['ingress', 'revoke'])).revoked).toEqual([rotated.token_id]);
    expect((await post(rotated.url, '{"resource":"a"}')).status).toBe(403);
    const third = await p.json(['ingress', 'url']);
    expect((await p.json(['agent', 'stop', 'rev'])).revoked).toEqual([third.token_id]);
    expect((await post(third.url, '{"resource":"a"}')).status).toBe(403);
    await until(() => events(p.home, 'rev').length === before + 1, 60_000, 'the rotated token\'s event');
    expect(await w.stop()).toBe(0);
    for (const t of [token, rotated.url.split('/').pop(), third.url.split('/').pop()]) expect(w.log()).not.toContain(t);
  });

  it('answers 413 to a chunked body (no length given) as soon as it passes 256 KiB', async () => {
    const { p, w } = await watched();
    const { url } = await p.json(['ingress', 'url']);
    const u = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      // Keep sending (up to 4 MiB) until the server answers: it must not wait for the end.
      const pump = () => {
        while (sent < 4 << 20) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.write('{"resource":"a","payload":"');
      pump();
    });
    expect(status).toBe(413);
    expect(inbox(p.home, 'rev')).toEqual([]);
    await w.stop();
  });

  it('--listen without an address uses holon.yaml ingress.listen; url uses the running address', async () => {
    const p = await project('rev');
    const cfg = join(p.home, 'holon.yaml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('listen: "127.0.0.1:7420"', 'listen: "127.0.0.1:0"'));
    const w = startWatch(p.dir, ['--listen']);
    const m = await w.waitFor(/ingress listening on http:\/\/(127\.0\.0\.1:\d+)/);
    expect(m[1]).not.toBe('127.0.0.1:0');
    expect((await p.json(['ingress', 'url'])).url.startsWith(`http://${m[1]}/hooks/`)).toBe(true);
    expect(await w.stop()).toBe(0);
  });

  it('refuses to listen on a non-loopback address', async () => {
    const p = await project('rev');
    const r = await p.h(['watch', '--listen', '0.0.0.0:7420', '--once']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('loopback only');
  });

  it('load: a thousand requests from another process, every accepted event recorded exactly once', async () => {
    const { p, w } = await watched();
    const { url } = await p.json(['ingress', 'url']);
    // A fixed count with no time budget (throughput is measured by bench/timings.mjs, not asserted here).
    const out = await new Promise<string>((res, rej) =>
      execFile(process.execPath, [join(import.meta.dirname, '../helpers/ingress-load.mjs'), url, '1000', '16', '600000'], { maxBuffer: 64 << 20 }, (err, stdout) => (err ? rej(err) : res(stdout))),
    );
    const r = JSON.parse(out);
    expect(r.sent).toBe(1000);
    expect(r.statuses['202']).toBe(r.sent);
    expect(new Set(r.ids).size).toBe(r.ids.length);
    expect(await w.stop()).toBe(0);
    // Each accepted event is on disk exactly once (queued, or admitted and moved to events/).
    const recorded = inbox(p.home, 'rev').map((f) => f.slice(0, -5));
    expect(recorded.sort()).toEqual([...r.ids].sort());
  }, 240_000);
});
