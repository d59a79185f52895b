// Per-run cpu (user+sys) and wall time of a child process, measured by one bash that runs the commands:
// bash's `times` builtin prints getrusage(RUSAGE_CHILDREN), the cpu of every reaped child (ms
// resolution), and $EPOCHREALTIME gives the wall time around each run. Each run is interleaved with a
// bare `node -e 0`, so the ratio compares both under the same load of a shared machine.
import { spawnSync } from 'node:child_process';

const sh = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const secs = (m) => Number(m[1]) * 60 + Number(m[2]);

/**
 * Runs each command line in `runs` (an array of argv arrays, one per run), each preceded by `node -e 0`.
 * Options: cwd, env, prepare (a shell line run before each timed command, not timed).
 * Returns { cpu, wall, baseCpu, baseWall } medians in ms.
 */
export function measure(runs, { cwd, env = {}, prepare = null, warmup = 1 } = {}) {
  // `times` must run in this shell (in a $(...) subshell it would report the subshell's children).
  const lines = ['snap() { echo "T $EPOCHREALTIME"; times; }'];
  const all = [...runs.slice(0, warmup), ...runs];
  for (const argv of all) {
    for (const [tag, cmd] of [['B', [process.execPath, '-e', '0']], ['C', argv]]) {
      if (tag === 'C' && prepare) lines.push(`${prepare} >/dev/null 2>&1`);
      lines.push(`echo S ${tag}`, 'snap', `${cmd.map(sh).join(' ')} >/dev/null 2>/tmp/holon-rusage-$$.err || { echo "FAIL exit $?"; cat /tmp/holon-rusage-$$.err; exit 1; }`, 'snap');
    }
  }
  const r = spawnSync('bash', ['-c', lines.join('\n')], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${runs[0].join(' ')} failed: ${r.stdout.split('FAIL ').pop()}${r.stderr}`);
  const samples = { B: [], C: [] };
  let tag = null;
  let prev = null;
  let wall = 0;
  let timesLine = 0;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('S ')) { tag = line.slice(2); prev = null; continue; }
    if (line.startsWith('T ')) { wall = Number(line.slice(2)) * 1000; timesLine = 0; continue; }
    const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(line);
    // The first line of `times` is the shell's own cpu, the second its children's.
    if (!m || ++timesLine !== 2) continue;
    const now = { wall, cpu: (secs([, m[1], m[2]]) + secs([, m[3], m[4]])) * 1000 };
    if (prev) samples[tag].push({ wall: now.wall - prev.wall, cpu: now.cpu - prev.cpu });
    prev = now;
  }
  const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const pick = (xs, k) => med(xs.slice(warmup).map((x) => x[k]));
  return { cpu: pick(samples.C, 'cpu'), wall: pick(samples.C, 'wall'), baseCpu: pick(samples.B, 'cpu'), baseWall: pick(samples.B, 'wall') };
}
