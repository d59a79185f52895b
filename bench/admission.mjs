#!/usr/bin/env node
// How fast `holon watch` admits a backlog of queued events, and in how much memory: N events are
// queued before the watcher starts (as after an outage or an ingress flood); the rate is measured
// over the first and the second half of the drain, so a rate that falls with the backlog shows.
// Usage: npm run build && node bench/admission.mjs [N...]   (default 1000 10000)
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initHome } from '../dist/store/init.js';
import { serializeEvent } from '../dist/store/events.js';
import { serializeWork, newBody } from '../dist/core/workitem.js';
import { iso } from '../dist/core/time.js';

const BIN = fileURLToPath(new URL('../bin/holon.js', import.meta.url));
const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const T0 = Date.now() - 3600_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function run(N) {
  const root = mkdtempSync(join(tmpdir(), 'holon-bench-admission-'));
  try {
    const dir = join(root, '.holon');
    initHome(dir, 'a');
    const base = join(dir, 'agents/a');
    // 20 items waiting on CI runs: every event is matched against their waits.
    for (let i = 0; i < 20; i++) {
      const wid = `w-b${String(i).padStart(7, '0')}`;
      const item = { id: wid, title: `item ${i}`, agent: 'a', status: 'open', class: 'advancement_task', action: null, priority: null, created_at: iso(T0), updated_at: iso(T0), revision: 1, depends_on: [], resume_when: [], requires: [], repo: null, branch: null, write_scope: [], needs_decision: [], decision_scope: null, exclude: [], claim: null,
        waits: [{ id: `wt-b${String(i).padStart(7, '0')}`, kind: 'external', resource: `ci:run/${i}`, reason: 'bench', status: 'active', created_at: iso(T0), recheck_at: iso(T0 + 86_400_000 * 30), settled_at: null, settled_reason: null }],
        blocker: null, successors: [], superseded_by: null, no_followup: null, delivery: null, extra: {} };
      writeFileSync(join(base, 'work', `${wid}.md`), serializeWork({ item, body: newBody(`objective ${i}`), entries: [] }));
    }
    mkdirSync(join(base, 'inbox'), { recursive: true });
    for (let i = 0; i < N; i++) {
      const id = `e-q${String(i).padStart(7, '0')}`;
      const ev = { id, agent: 'a', source: 'external', mode: 'wake_hint', resource: `external:ci:run/${1000 + i}`, work_item: null, payload: `build ${i} finished`, provenance: 'ingress:bench', created_at: iso(T0 + i), status: 'queued', admitted_at: null, disposition: null };
      writeFileSync(join(base, 'inbox', `${id}.yaml`), serializeEvent(ev));
    }
    const queued = () => readdirSync(join(base, 'inbox')).filter((f) => f.endsWith('.yaml')).length;
    const start = Date.now();
    const child = spawn(process.execPath, [BIN, 'watch'], { cwd: root, stdio: ['ignore', 'ignore', 'ignore'] });
    let half = null;
    let peakKb = 0;
    for (;;) {
      const left = queued();
      try {
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0));
      } catch {
        // not on Linux
      }
      if (half === null && left <= N / 2) half = Date.now();
      if (left === 0) break;
      if (Date.now() - start > 600_000) throw new Error(`${left} of ${N} still queued after 10 minutes`);
      await sleep(50);
    }
    const end = Date.now();
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
    const admitted = readdirSync(join(base, 'events')).length;
    const rate = (n, ms) => `${Math.round(n / (ms / 1000))}/s`;
    console.log(`${String(N).padStart(6)} queued: all admitted in ${((end - start) / 1000).toFixed(1)} s (${rate(N, end - start)}, incl. watcher start); first half ${rate(N / 2, half - start)}, second half ${rate(N / 2, end - half)}; peak RSS ${Math.round(peakKb / 1024)} MB${admitted === N ? '' : `; ${admitted} records in events/ (expected ${N})`}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

for (const n of sizes.length ? sizes : [1000, 10000]) await run(n);
