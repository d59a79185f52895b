// Generates a home of N WorkItems for benchmarks, writing files directly (fast).
// Usage: node bench/generate.mjs DIR N   -> DIR/.holon with agent "main"
import { mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/holon.js', import.meta.url));

export function generateHome(dir, n, { agents = ['main'] } = {}) {
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync(process.execPath, [BIN, 'init', '--agent', agents[0]], { cwd: dir });
  for (const a of agents.slice(1)) execFileSync(process.execPath, [BIN, 'agent', 'add', a], { cwd: dir });
  const ids = [];
  const pad = (i) => i.toString(32).padStart(8, '0');
  for (let i = 0; i < n; i++) ids.push(`w-${pad(i)}`);
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < n; i++) {
    const agent = agents[i % agents.length];
    const at = new Date(t0 + i * 60_000).toISOString().replace('.000Z', 'Z');
    const deps = i > 10 && i % 3 === 0 ? `depends_on:\n  - "${ids[i - 7]}"\n` : '';
    const status = i % 5 === 0 ? 'done' : i % 11 === 0 ? 'deferred' : 'open';
    const waits = i % 4 === 1
      ? `waits:\n  - id: "wt-${pad(i)}"\n    kind: "external"\n    resource: "ci:run/${i}"\n    reason: "CI on the reviewed commit"\n    status: "active"\n    created_at: "${at}"\n    recheck_at: "2027-01-01T00:00:00Z"\n    settled_at: null\n    settled_reason: null\n`
      : '';
    const text = `---\nid: "${ids[i]}"\ntitle: "Generated item ${i}"\nagent: "${agent}"\nstatus: "${status}"\nclass: "advancement_task"\npriority: "P${i % 5}"\ncreated_at: "${at}"\nupdated_at: "${at}"\nrevision: 1\n${deps}${waits}---\n\n## Objective\n\nDeliver generated item ${i}: a realistic paragraph of objective text that says what must be done and how it will be verified.\n\n## Progress\n\n- ${at} started; read the relevant code\n- ${at} found the second half of the problem\n\n## Evidence\n\n- ${at} [commit abc${i}] tests pass on the branch\n\n## On return\n\nCheck CI, then continue with the next step.\n`;
    writeFileSync(join(dir, '.holon/agents', agent, 'work', `${ids[i]}.md`), text);
  }
  return { home: join(dir, '.holon'), ids };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, n] = process.argv.slice(2);
  generateHome(dir, Number(n));
  console.log(`generated ${n} items in ${dir}/.holon`);
}
