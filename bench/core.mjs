// Everyday commands at 1k and 10k items: median whole-process time of list --json, show, progress.
// A single-record command must not get slower as the home grows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { generateHome } from './generate.mjs';
import { BIN, medianMs, printTable } from './lib.mjs';

const sizes = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const runs = Number(process.env.BENCH_RUNS ?? 7);
const base = mkdtempSync(join(tmpdir(), 'holon-bench-'));
const rows = [['items', 'node -e 0', 'list --json (cold)', 'list --json', 'show', 'progress']];
try {
  const t = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  for (const n of sizes) {
    const dir = join(base, `h${n}`);
    const { ids } = generateHome(dir, n);
    const id = ids[Math.floor(n / 2)];
    const nodeOnly = (() => {
      const ts = [];
      for (let i = 0; i < runs; i++) {
        const s = process.hrtime.bigint();
        spawnSync(process.execPath, ['-e', '0']);
        ts.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
      return ts.sort((a, b) => a - b)[Math.floor(runs / 2)];
    })();
    const cold = medianMs(['list', '--json'], { cwd: dir, runs: 1, warmup: 0 });
    rows.push([
      n,
      nodeOnly.toFixed(0) + ' ms',
      cold.toFixed(0) + ' ms',
      medianMs(['list', '--json'], { cwd: dir, runs }).toFixed(0) + ' ms',
      medianMs(['show', id], { cwd: dir, runs }).toFixed(0) + ' ms',
      medianMs(['progress', id, 'bench entry'], { cwd: dir, runs }).toFixed(0) + ' ms',
    ]);
  }
  void t;
  printTable(`everyday commands (median of ${runs} runs, whole process; BIN=${BIN})`, rows);
} finally {
  rmSync(base, { recursive: true, force: true });
}
