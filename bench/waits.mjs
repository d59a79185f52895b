#!/usr/bin/env node
// Benchmark of the waits runtime: nextDueMs and tick() on a home with many live timers and waiting
// items (what `holon watch` calls between sleeps). Usage: npm run build && node bench/waits.mjs [N]
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initHome } from '../dist/store/init.js';
import { openHome } from '../dist/store/home.js';
import { serializeTimer } from '../dist/store/timers.js';
import { serializeWork, newBody } from '../dist/core/workitem.js';
import { tick, nextDueMs } from '../dist/runtime/tick.js';
import { fireDueTimers } from '../dist/runtime/timers.js';
import { admitQueued } from '../dist/runtime/admission.js';
import { iso } from '../dist/core/time.js';

const N = Number(process.argv[2] ?? 1000);
const DUE = Math.min(200, N);
const root = mkdtempSync(join(tmpdir(), 'holon-bench-waits-'));
const T0 = Date.parse('2026-11-30T10:00:00Z');
try {
  const dir = join(root, '.holon');
  initHome(dir, 'a');
  const base = join(dir, 'agents/a');
  mkdirSync(join(base, 'timers'), { recursive: true });
  for (let i = 0; i < N; i++) {
    const tid = `t-b${String(i).padStart(7, '0')}`;
    const wid = `w-b${String(i).padStart(7, '0')}`;
    // The first DUE timers are due at T0 + 1 min; the rest an hour later.
    const due = iso(T0 + (i < DUE ? 60_000 : 3600_000));
    writeFileSync(join(base, 'timers', `${tid}.yaml`), serializeTimer({ id: tid, agent: 'a', work_item: wid, summary: null, status: 'active', created_at: iso(T0), first_due_at: due, every: null, until: null, next_due_at: due, last_fired_at: null, last_slot_at: null, fire_count: 0, missed_count: 0, cancelled_at: null, revision: 1 }));
    const item = { id: wid, title: `item ${i}`, agent: 'a', status: 'open', class: 'advancement_task', action: null, priority: null, created_at: iso(T0), updated_at: iso(T0), revision: 1, depends_on: [], resume_when: [], requires: [], repo: null, branch: null, write_scope: [], needs_decision: [], decision_scope: null, exclude: [], claim: null,
      waits: [{ id: `wt-b${String(i).padStart(7, '0')}`, kind: 'timer', resource: tid, reason: 'bench', status: 'active', created_at: iso(T0), recheck_at: iso(T0 + 86_400_000), settled_at: null, settled_reason: null }],
      blocker: null, successors: [], superseded_by: null, no_followup: null, delivery: null, extra: {} };
    writeFileSync(join(base, 'work', `${wid}.md`), serializeWork({ item, body: newBody(`objective ${i}`), entries: [] }));
  }
  const home = openHome({ cwd: root, env: {} });
  const time = async (label, fn) => {
    const t = process.hrtime.bigint();
    const r = await fn();
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    console.log(`${label.padEnd(48)} ${ms.toFixed(1).padStart(8)} ms`);
    return r;
  };
  console.log(`home with ${N} active timers and ${N} waiting items (${DUE} due)`);
  await time('nextDueMs (cold cache)', () => nextDueMs(home));
  await time('nextDueMs (warm cache)', () => nextDueMs(home));
  await time('tick, nothing due', () => tick(home, T0));
  if (process.env.PHASES) {
    await time(`fire ${DUE} due timers`, () => fireDueTimers(home, ['a'], T0 + 61_000));
    await time(`admit ${DUE} events`, () => admitQueued(home, ['a'], T0 + 61_000));
  }
  const r = await time(`tick, ${DUE} timers due (fire + admit + trigger)`, () => tick(home, T0 + 61_000));
  if (!process.env.PHASES && (r.timers_fired.length !== DUE || r.events_admitted.length !== DUE)) throw new Error(`expected ${DUE} fires, got ${r.timers_fired.length}`);
  await time('tick again at the same moment (fires nothing)', () => tick(home, T0 + 61_000));
  console.log(`rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`);
  // Whole-process times of the commands CI scripts and agents call, on this home.
  const bin = fileURLToPath(new URL('../bin/holon.js', import.meta.url));
  const median = (args) => {
    const times = [];
    for (let i = 0; i < 7; i++) {
      const t = Date.now();
      const r = spawnSync(process.execPath, [bin, ...args(i)], { env: { ...process.env, HOLON_HOME: dir, HOLON_AGENT: 'a' }, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      times.push(Date.now() - t);
    }
    return times.sort((x, y) => x - y)[3];
  };
  console.log(`${'holon notify (median of 7, whole process)'.padEnd(48)} ${String(median((i) => ['notify', `ci:run/${i}`])).padStart(8)} ms`);
  console.log(`${'holon wait --for external (median of 7)'.padEnd(48)} ${String(median((i) => ['wait', `w-b${String(DUE + i).padStart(7, '0')}`, '--for', `external:x:${i}`, '--reason', 'r'])).padStart(8)} ms`);
  console.log(`${'holon tick, nothing due (median of 7)'.padEnd(48)} ${String(median(() => ['tick'])).padStart(8)} ms`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
