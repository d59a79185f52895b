import { connect } from 'node:net';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { startWatch } from '../helpers/watch.js';

/**
 * Event files queued (inbox/) or admitted (events/), each once: the watcher moves one by writing it to
 * events/ first and then unlinking it from inbox/, so for a moment it is in both.
 */
const queued = (home: string) => {
  const ls = (d: string) => (existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.yaml')) : []);
  return [...new Set([...ls(join(home, 'agents/rev/inbox')), ...ls(join(home, 'agents/rev/events'))])];
};

async function watched() {
  const p = await project('rev');
  const w = startWatch(p.dir, ['--listen', '127.0.0.1:0']);
  const m = await w.waitFor(/ingress listening on http:\/\/(127\.0\.0\.1:(\d+))/);
  const url = (await p.json(['ingress', 'url'])).url as string;
  return { p, w, url, port: Number(m[2]) };
}

const post = (url: string, body: string) => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('ingress under hostile input', () => {
  it('deeply nested JSON under the size limit is a 400, not a 500; C1 controls and bidi overrides are refused; nothing is queued', async () => {
    const { p, w, url } = await watched();
    try {
      const deep = `{"resource":"external:ci:run/1","payload":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
      const deepObj = `{"resource":"external:ci:run/1","payload":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`;
      for (const body of [deep, deepObj]) {
        const r = await post(url, body);
        expect(r.status).toBe(400);
        expect((await r.json()).error).toMatch(/nested deeper than 64 levels/);
      }
      for (const payload of ['next line\u0085here', 'csi \u009b31m red', 'invoice for \u202egnp.exe', 'isolate \u2067x\u2069']) {
        const r = await post(url, JSON.stringify({ resource: 'external:ci:run/1', mode: 'message', payload }));
        expect(r.status, JSON.stringify(payload)).toBe(400);
        expect((await r.json()).error).toMatch(/control characters/);
      }
      const ok = await post(url, JSON.stringify({ resource: 'external:ci:run/1', payload: { nested: [[['fine']]] } }));
      expect(ok.status).toBe(202);
      expect(queued(p.home)).toHaveLength(1);
      expect(w.log()).not.toMatch(/request failed/);
      const cli = await p.h(['notify', 'external:ci:run/2', '--payload', 'look \u202eevil']);
      expect(cli.code).toBe(3);
    } finally {
      await w.stop();
    }
  });

  it('a client that never finishes its headers is cut off by the server', async () => {
    const { w, port } = await watched();
    try {
      const socket = connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.write('POST /hooks/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      let answer = '';
      socket.on('data', (d) => (answer += d));
      // Node's own defaults would keep it open for a minute or more; the bound here is generous.
      const closed = await Promise.race([new Promise<boolean>((r) => socket.once('close', () => r(true))), new Promise<boolean>((r) => setTimeout(() => r(false), 40_000).unref())]);
      socket.destroy();
      expect(closed).toBe(true);
      expect(answer === '' || /^HTTP\/1\.1 408/.test(answer)).toBe(true);
    } finally {
      await w.stop();
    }
  });
});

describe('check reports what other commands refuse', () => {
  it('a hand-edited timer with every: "1ms" fails check', async () => {
    const p = await project();
    const id = (await p.json(['timer', 'add', '--in', '1h', '--every', '1h'])).id;
    const file = join(p.home, 'agents/main/timers', `${id}.yaml`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('every: "1h"', 'every: "1ms"'));
    const r = await p.h(['check', '--json']);
    expect(r.code).toBe(3);
    const problems = JSON.parse(r.stdout).problems;
    expect(problems.some((q: any) => q.file.endsWith(`${id}.yaml`) && /every "1ms" is not a whole number of seconds of at least 1s/.test(q.message))).toBe(true);
  });

  it('a bad holon.yaml is reported by check with its file and line (other commands refuse it)', async () => {
    const p = await project();
    const cfg = join(p.home, 'holon.yaml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8') + 'watch:\n  no_progress_limit: [1, 2\n');
    const r = await p.h(['check', '--json']);
    expect(r.code, r.stderr).toBe(3);
    const problems = JSON.parse(r.stdout).problems;
    const mine = problems.filter((q: any) => q.file.endsWith('holon.yaml'));
    expect(mine).toHaveLength(1);
    expect(mine[0].line).toBeGreaterThan(1);
    const text = await p.h(['check']);
    expect(text.stdout).toMatch(/holon\.yaml:\d+: /);
    expect((await p.h(['list'])).code).toBe(3);
  });
});
