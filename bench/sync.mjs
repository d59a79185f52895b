// Working across machines on a local bare remote: `holon sync` with nothing to do, with 100 incoming
// items, with 10 items edited on both clones (each merged by the driver), and a shared claim.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, medianMs, printTable } from './lib.mjs';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const base = mkdtempSync(join(tmpdir(), 'holon-bench-sync-'));
const git = (cwd, ...args) => execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=bench', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const holon = (cwd, ...args) => execFileSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const timed = (cwd, args) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`holon ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let seq = 0;
const addItems = (dir, n) => {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const id = `w-b${String(seq++).padStart(7, '0')}`;
    ids.push(id);
    writeFileSync(join(dir, '.holon/agents/main/work', `${id}.md`), `---\nid: "${id}"\ntitle: "Incoming ${id}"\nagent: "main"\nstatus: "open"\nclass: "advancement_task"\ncreated_at: "2026-12-01T08:00:00Z"\nupdated_at: "2026-12-01T08:00:00Z"\nrevision: 1\n---\n\n## Objective\n\nDeliver ${id}.\n\n## Progress\n\n## Evidence\n\n## On return\n`);
  }
  return ids;
};

try {
  const remote = join(base, 'remote.git');
  const [a, b] = [join(base, 'a'), join(base, 'b')];
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  execFileSync('git', ['init', '-q', '-b', 'main', a]);
  git(a, 'remote', 'add', 'origin', remote);
  for (const d of [a]) {
    git(d, 'config', 'user.email', 'a@a');
    git(d, 'config', 'user.name', 'a');
  }
  holon(a, 'init', '--agent', 'main');
  holon(a, 'sync');
  git(base, 'clone', '-q', remote, b);
  git(b, 'config', 'user.email', 'b@b');
  git(b, 'config', 'user.name', 'b');
  holon(b, 'setup', 'git');
  const nodeOnly = median(Array.from({ length: runs }, () => {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    return Number(process.hrtime.bigint() - t) / 1e6;
  }));
  const idle = medianMs(['sync'], { cwd: b, runs });
  const incoming = median(Array.from({ length: 3 }, () => {
    addItems(a, 100);
    holon(a, 'sync');
    return timed(b, ['sync']);
  }));
  const both = median(Array.from({ length: 3 }, () => {
    const ids = addItems(a, 10);
    holon(a, 'sync');
    holon(b, 'sync');
    for (const [dir, who] of [[a, 'a'], [b, 'b']]) {
      for (const id of ids) holon(dir, 'progress', id, `note from ${who}`);
    }
    holon(a, 'sync');
    return timed(b, ['sync']);
  }));
  holon(b, 'sync');
  holon(a, 'sync');
  const claim = median(Array.from({ length: runs }, () => {
    const [id] = addItems(a, 1);
    holon(a, 'sync');
    return timed(a, ['claim', id, '--sync']);
  }));
  const local = median(Array.from({ length: runs }, () => {
    const [id] = addItems(a, 1);
    return timed(a, ['claim', id]);
  }));
  printTable(`holon sync on a local bare remote (median; whole process; node -e 0: ${nodeOnly.toFixed(0)} ms)`, [
    ['measure', 'time'],
    ['holon sync, nothing to do', `${idle.toFixed(0)} ms`],
    ['holon sync, 100 incoming items', `${incoming.toFixed(0)} ms`],
    ['holon sync, 10 items edited on both clones (driver per file)', `${both.toFixed(0)} ms`],
    ['holon claim --sync (fetch, claim, commit, push)', `${claim.toFixed(0)} ms`],
    ['holon claim, local only', `${local.toFixed(0)} ms`],
  ]);
} finally {
  rmSync(base, { recursive: true, force: true });
}
