#!/usr/bin/env node
// Benchmark: `holon frontier --json` (warm, after a progress note, after an edit, cold) and `holon explain ID`
// on generated homes of 1k and 10k items (--sizes 10000,50000 for the large one), as ratios to `node -e 0`.
// Usage: node bench/frontier.mjs [--runs 7] [--sizes 1000,10000]. Homes go to bench/.homes/ (gitignored).
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { opt } from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin/holon.js');
const RUNS = Number(opt('runs', 7));
const SIZES = String(opt('sizes', '1000,10000')).split(',').map(Number);
const NOW = '2026-11-30T06:00:00Z';
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const TIME_OUT = join(tmpdir(), `holon-bench-time-${process.pid}.txt`);

// Deterministic pseudo-random numbers, so every run measures the same home.
let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
const ALPHA = '0123456789abcdefghjkmnpqrstvwxyz';
const id = (n) => {
  let s = '';
  for (let i = 0; i < 8; i++) s += ALPHA[(n * 2654435761 + i * 97) % 32 >>> 0 & 31];
  return `w-${s}${n.toString(32)}`;
};
const q = (s) => JSON.stringify(s);
const list = (key, xs) => (xs.length ? `${key}:\n${xs.map((x) => `  - ${q(x)}`).join('\n')}\n` : '');
const ts = (m) => new Date(Date.parse('2026-01-01T00:00:00Z') + m * 60_000).toISOString().replace('.000Z', 'Z');

function item(n, ids, gates) {
  const r = rnd();
  const status = r < 0.55 ? 'done' : r < 0.85 ? 'open' : r < 0.93 ? 'deferred' : 'blocked';
  const klass = gates.has(n) ? 'user_gate' : rnd() < 0.03 ? 'user_action' : rnd() < 0.03 ? 'continuous_monitor' : 'advancement_task';
  const deps = n > 10 && rnd() < 0.35 ? [...new Set([ids[n - 1 - Math.floor(rnd() * Math.min(n - 1, 200))], ...(rnd() < 0.3 ? [ids[Math.floor(rnd() * (n - 1))]] : [])])] : [];
  const pri = rnd() < 0.8 ? `P${Math.floor(rnd() * 5)}` : null;
  let fm = `---\nid: ${q(ids[n])}\ntitle: ${q(`Item ${n}: ${pick(['review', 'implement', 'test', 'document', 'release'])} ${pick(['export API', 'grid contract', 'auth path', 'CI cache'])}`)}\nagent: "main"\nstatus: ${q(klass === 'user_gate' && status !== 'done' ? 'open' : status)}\nclass: ${q(klass)}\n`;
  if (pri) fm += `priority: ${q(pri)}\n`;
  fm += `created_at: ${q(ts(n))}\nupdated_at: ${q(ts(n + 5))}\nrevision: ${1 + Math.floor(rnd() * 9)}\n`;
  fm += list('depends_on', deps);
  if (status === 'deferred') fm += list('resume_when', [pick([`at:${ts(n + 500000)}`, `done:${ids[Math.floor(rnd() * n)] ?? ids[0]}`, 'capability:gpu', 'event:github:acme/app#7'])]);
  if (rnd() < 0.1) fm += list('requires', [pick(['shell', 'network', 'gpu'])]);
  if (rnd() < 0.15) fm += `repo: "holon"\n`;
  if (rnd() < 0.2) fm += list('write_scope', [pick(['src/api/**', 'src/ui/**', 'docs/*.md', 'src/core/frontier.ts', 'test/**'])]);
  if (klass !== 'user_gate' && rnd() < 0.08) fm += list('needs_decision', [`${pick(['api_change', 'release', 'spend'])}:action:${pick(['export', 'grid', 'auth'])}`]);
  if (klass === 'user_gate') fm += `decision_scope:\n  scope: ${q(`${pick(['api_change', 'release', 'spend'])}:${pick(['action', 'lane', 'project'])}:${pick(['export', 'grid', 'auth', '*'])}`)}\n${status === 'done' ? `  decision: ${q(pick(['approved', 'rejected']))}\n` : ''}`;
  if (rnd() < 0.05) fm += list('exclude', ['main']);
  if (status === 'open' && rnd() < 0.08) fm += `claim:\n  holder: ${q(pick(['agent:main', 'agent:peer']))}\n  claimed_at: ${q(ts(n))}\n  expires_at: ${q(rnd() < 0.5 ? '2026-11-30T07:00:00Z' : '2026-11-30T05:00:00Z')}\n  version: 1\n  epoch: 1\n`;
  if (status === 'open' && rnd() < 0.15) {
    fm += `waits:\n  - id: "wt-${n}"\n    kind: "external"\n    resource: "ci:run/${n}"\n    reason: "CI must pass"\n    status: ${q(rnd() < 0.3 ? 'triggered' : 'active')}\n    created_at: ${q(ts(n))}\n    recheck_at: "2026-12-01T00:00:00Z"\n    settled_at: null\n    settled_reason: null\n`;
  }
  if (status === 'blocked') fm += `blocker:\n  reason: "upstream outage"\n  recovery: "retry when the vendor is back"\n  since: ${q(ts(n))}\n`;
  const body = `\n## Objective\n\nDeliver item ${n}: ${'a realistic objective sentence with some words. '.repeat(3)}\n\n## Progress\n\n- ${ts(n + 1)} started; read the code\n- ${ts(n + 2)} found the relevant module\n\n## Evidence\n\n- ${ts(n + 3)} [commit 3f9c2ab] tests pass\n\n## On return\n\nrecheck CI on the new commit\n`;
  return `${fm}---\n${body}`;
}

function makeHome(size) {
  const dir = join(ROOT, 'bench/.homes', `frontier-${size}`);
  const marker = join(dir, '.holon/.complete');
  if (existsSync(marker)) return dir;
  rmSync(dir, { recursive: true, force: true });
  const home = join(dir, '.holon');
  const work = join(home, 'agents/main/work');
  mkdirSync(work, { recursive: true });
  mkdirSync(join(home, 'agents/peer/work'), { recursive: true });
  writeFileSync(join(home, 'holon.yaml'), 'version: 1\ndefault_agent: "main"\ncapabilities:\n  shell:\n    probe: "true"\n  network: {}\n');
  writeFileSync(join(home, '.gitignore'), 'local/\n');
  for (const a of ['main', 'peer']) writeFileSync(join(home, `agents/${a}/AGENTS.md`), `---\nagent: "${a}"\ncapabilities: ["shell"]\n---\n# ${a}\n`);
  seed = 42 + size;
  const ids = Array.from({ length: size }, (_, n) => id(n));
  const gates = new Set(Array.from({ length: Math.floor(size / 50) }, () => Math.floor(rnd() * size)));
  for (let n = 0; n < size; n++) writeFileSync(join(work, `${ids[n]}.md`), item(n, ids, gates));
  writeFileSync(marker, '');
  return dir;
}

function timeRuns(cmdArgs, cwd, before = () => {}, bin = BIN) {
  const env = { ...process.env, HOLON_NOW: NOW, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('HOLON_') && k !== 'HOLON_NOW') delete env[k];
  // One warm-up run builds the caches under local/, as any earlier command would have.
  const argv = bin ? [bin, ...cmdArgs] : cmdArgs;
  const warm = spawnSync(process.execPath, argv, { cwd, env, encoding: 'utf8', maxBuffer: 256 << 20 });
  if (warm.status !== 0) throw new Error(`holon ${cmdArgs.join(' ')} exited ${warm.status}: ${warm.stderr}`);
  const times = [];
  const cpus = [];
  const rss = [];
  for (let i = 0; i < RUNS; i++) {
    before(i);
    const t0 = process.hrtime.bigint();
    // /usr/bin/time (when present) also reports the child's CPU time, which shared machines distort less.
    const r = TIME
      ? spawnSync(TIME, ['-f', '%U %S %M', '-o', TIME_OUT, process.execPath, ...argv], { cwd, env, encoding: 'utf8', maxBuffer: 256 << 20 })
      : spawnSync(process.execPath, argv, { cwd, env, encoding: 'utf8', maxBuffer: 256 << 20 });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0) throw new Error(`holon ${cmdArgs.join(' ')} exited ${r.status}`);
    if (TIME) {
      const [u, s, m] = readFileSync(TIME_OUT, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
      cpus.push((u + s) * 1000);
      rss.push(m / 1024);
    }
  }
  times.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], min: times[0], max: times[times.length - 1], cpu: cpus.length ? cpus[Math.floor(cpus.length / 2)] : '-', rss: rss.length ? Math.max(...rss) : '-', out: warm.stdout };
}

if (!existsSync(join(ROOT, 'dist/cli/main.js'))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
const rows = [];
// Every row is also given as a ratio to a bare `node -e 0` measured in the same run (issue 14's targets).
const bare = timeRuns(['-e', '0'], ROOT, () => {}, null);
const row = (name, size, r) => rows.push([name, size, r.median, r.min, r.max, r.cpu, r.rss, typeof r.cpu === 'number' ? r.cpu / bare.cpu : r.median / bare.median]);
row('node -e 0 (baseline)', '-', bare);
const startup = timeRuns(['--version'], ROOT);
row('node + holon --version', '-', startup);
for (const size of SIZES) {
  const t0 = Date.now();
  const dir = makeHome(size);
  const genMs = Date.now() - t0;
  const f = timeRuns(['frontier', '--json'], dir);
  const parsed = JSON.parse(f.out);
  row(`frontier --json, home unchanged (${parsed.counts.runnable} runnable)`, size, f);
  // After a write: one item changed before each run, so the result cache cannot be reused (the graph
  // cache still saves parsing the other files).
  const touched = join(dir, '.holon/agents/main/work', `${parsed.runnable[0].id}.md`);
  const w = timeRuns(['frontier', '--json'], dir, (i) => appendFileSync(touched, `- 2026-11-30T05:0${i}:00Z a progress note\n`));
  row('frontier --json, a progress note before each run', size, w);
  // A change the frontier reads (priority): the answer is computed again.
  const g = timeRuns(['frontier', '--json'], dir, (i) => {
    const text = readFileSync(touched, 'utf8').replace(/^priority: .*\n/m, '');
    writeFileSync(touched, text.replace(/^(class: .*\n)/m, `$1priority: "P${i % 5}"\n`));
  });
  row('frontier --json, a priority changed before each run', size, g);
  // Cold: no local/ at all (a fresh clone): every file is read and parsed.
  const c = timeRuns(['frontier', '--json'], dir, () => rmSync(join(dir, '.holon/local'), { recursive: true, force: true }));
  row('frontier --json, cold (no local/)', size, c);
  const target = parsed.not_runnable[0]?.id ?? parsed.runnable[0]?.id;
  const e = timeRuns(['explain', target, '--json'], dir);
  row('explain ID --json', size, e);
  const l = timeRuns(['list', '--json'], dir);
  row('list --json (reference)', size, l);
  if (genMs > 50) process.stderr.write(`generated ${size} items in ${genMs} ms\n`);
}
const fmt = (n) => (typeof n === 'number' ? n.toFixed(0).padStart(6) : String(n).padStart(6));
console.log(`holon frontier benchmark: ${RUNS} runs each, median/min/max in ms, peak RSS in MB, x = cpu / cpu of node -e 0`);
console.log(`${'command'.padEnd(52)} ${'items'.padStart(6)} ${'median'.padStart(6)} ${'min'.padStart(6)} ${'max'.padStart(6)} ${'cpu'.padStart(6)} ${'rss'.padStart(6)} ${'x'.padStart(6)}`);
for (const r of rows) console.log(`${String(r[0]).padEnd(52)} ${fmt(r[1])} ${fmt(r[2])} ${fmt(r[3])} ${fmt(r[4])} ${fmt(r[5])} ${fmt(r[6])} ${r[7].toFixed(2).padStart(6)}`);
console.log('(wall-clock median/min/max; cpu = median user+sys of the process; load average now: ' + (await import('node:os')).loadavg()[0].toFixed(2) + ')');
