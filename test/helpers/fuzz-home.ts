import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The seeded homes and the answer diff of the frontier's differential fuzz test (test/cli/frontier-fuzz.test.ts). */

export const T0 = Date.parse('2026-11-30T06:00:00Z');
export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
export const CHANNELS = ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable'];

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    let t = (a = (a + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const one = <T>(xs: T[]): T | undefined => (xs.length ? xs[int(xs.length)] : undefined);
  const shuffle = <T>(xs: T[]) => xs.map((x) => [next(), x] as const).sort((p, q) => p[0] - q[0]).map((p) => p[1]);
  return { next, int, one, shuffle };
}
export type Rnd = ReturnType<typeof prng>;

/** A work file as holon writes them, from its front matter lines and body. */
export const record = (lines: string[], body = '') => `---\n${lines.join('\n')}\n---\n\n## Objective\n\nobjective\n\n## Progress\n\n${body}`;

/** Writes the seeded home: `n` items of agent main, 8 of agent peer (some of main's depend on them). */
export function writeHome(rnd: Rnd, work: string, peerWork: string, n: number) {
  const ids = Array.from({ length: n }, (_, i) => `w-f${i.toString(32).padStart(5, '0')}`);
  const peer = Array.from({ length: 8 }, (_, i) => `w-p${i.toString(32).padStart(5, '0')}`);
  peer.forEach((id, i) => writeFileSync(join(peerWork, `${id}.md`), record([`id: "${id}"`, `title: "peer ${i}"`, 'agent: "peer"', `status: "${rnd.next() < 0.4 ? 'done' : 'open'}"`, 'class: "advancement_task"', 'priority: "P2"', 'created_at: "2026-11-01T00:00:00Z"', 'revision: 1', ...(i % 3 ? [] : ['depends_on:', `  - "${rnd.one(ids)}"`])])));
  // Per seed: how many gates and decisions (items a patch gives up on) and how many dependencies.
  const gates = rnd.next() * 0.08;
  const depends = 0.2 + rnd.next() * 0.5;
  const at = (lo: number, hi: number) => iso(T0 + (lo + rnd.int(hi - lo)) * 60_000);
  ids.forEach((id, i) => {
    const r = rnd.next();
    const status = r < 0.2 ? 'done' : r < 0.26 ? 'blocked' : r < 0.32 ? 'deferred' : 'open';
    const c = rnd.next();
    const gate = c < gates;
    const lines = [`id: "${id}"`, `title: "item ${i}${rnd.next() < 0.1 ? ' \\"q\\" é' : ''}"`, 'agent: "main"', `status: "${status}"`];
    lines.push(`class: "${gate ? 'user_gate' : c < gates + 0.04 ? 'user_action' : 'advancement_task'}"`);
    if (rnd.next() < 0.9) lines.push(`priority: "P${rnd.int(5)}"`);
    lines.push(`created_at: "2026-11-${String(1 + rnd.int(28)).padStart(2, '0')}T00:${String(rnd.int(60)).padStart(2, '0')}:00Z"`, 'revision: 1');
    if (i > 0 && rnd.next() < depends) {
      const deps = new Set([ids[rnd.int(i)], ...(rnd.next() < 0.3 ? [ids[rnd.int(i)]] : []), ...(rnd.next() < 0.1 ? [rnd.one(peer)!] : [])]);
      lines.push('depends_on:', ...[...deps].map((d) => `  - "${d}"`));
    }
    if (status === 'deferred') lines.push('resume_when:', `  - "${i > 0 && rnd.next() < 0.3 ? `done:${ids[rnd.int(i)]}` : `at:${at(5, 120)}`}"`);
    if (rnd.next() < 0.05) lines.push('requires:', `  - "${rnd.one(['gpu', 'shell'])}"`);
    if (rnd.next() < 0.03) lines.push(`branch: "${rnd.one(['main', 'other'])}"`);
    if (!gate && rnd.next() < gates) lines.push('needs_decision:', `  - "api:action:k${rnd.int(3)}"`);
    if (gate) lines.push('decision_scope:', `  scope: "api:action:k${rnd.int(3)}"`);
    if (rnd.next() < 0.02) lines.push('exclude:', '  - "main"');
    const k = rnd.next();
    if (k < 0.1) lines.push('claim:', '  holder: "agent:peer"', '  claimed_at: "2026-11-30T05:00:00Z"', `  expires_at: "${at(5, 90)}"`, '  version: 1', '  epoch: 1');
    else if (k < 0.14) lines.push('claim:', '  holder: "agent:main"', '  claimed_at: "2026-11-30T05:00:00Z"', '  version: 1', '  epoch: 1');
    if (status === 'open' && rnd.next() < 0.1) {
      lines.push('waits:', `  - id: "wt-f${i.toString(32).padStart(7, '0')}"`, '    kind: "external"', `    resource: "r${rnd.int(3)}"`, '    reason: "r"', '    status: "active"', '    created_at: "2026-11-30T05:00:00Z"', `    recheck_at: "${at(20, 180)}"`, '    settled_at: null', '    settled_reason: null');
    }
    const body = rnd.next() < 0.1 ? `## Evidence\n\n- 2026-11-30T0${rnd.int(6)}:00:00Z [commit deadbeef] seen\n` : '';
    writeFileSync(join(work, `${id}.md`), record(lines, body));
  });
}


/** Where two answers differ: counts, and per channel the entries only one has or that differ. */
export function diff(fast: any, full: any): string {
  const out: string[] = [];
  const j = JSON.stringify;
  for (const k of Object.keys({ ...fast, ...full })) if (!CHANNELS.includes(k) && j(fast[k]) !== j(full[k])) out.push(`${k}: fast ${j(fast[k])} full ${j(full[k])}`);
  for (const c of CHANNELS) {
    const [a, b]: any[][] = [fast[c] ?? [], full[c] ?? []];
    if (j(a) === j(b)) continue;
    out.push(`${c}: fast [${a.map((e) => e.id).join(' ')}] full [${b.map((e) => e.id).join(' ')}]`);
    for (const e of a) {
      const g = b.find((x) => x.id === e.id);
      if (g && j(g) !== j(e)) out.push(`  ${e.id}: fast ${j(e)}\n  ${' '.repeat(e.id.length)}  full ${j(g)}`);
    }
  }
  return out.join('\n') || '(same JSON, other bytes)';
}
