import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { iso } from '../core/time.js';
import { writeFileAtomic } from './atomic-write.js';
import { capabilityCachePath, readCapabilityCache, type Declared, type ProbeResult } from './capabilities.js';
import type { Home } from './home.js';

/** Runs one probe with `sh -c`, killed after `timeoutMs`; exit 0 means the capability is there. */
export function runProbe(cmd: string, cwd: string, timeoutMs: number, nowMs: () => number): Promise<ProbeResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', cmd], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const keep = (b: Buffer) => {
      if (output.length < 2000) output += b.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      // Node fires a delay over 2^31-1 ms at once: a longer --timeout means no limit in practice.
    }, Math.min(timeoutMs, 2 ** 31 - 1));
    const done = (code: number | null) => {
      clearTimeout(timer);
      resolve({
        ok: !timedOut && code === 0,
        probe: cmd,
        exit_code: code,
        output: (timedOut ? `timed out after ${timeoutMs} ms\n` : '') + output.trim().slice(0, 2000),
        checked_at: iso(nowMs()),
        ms: Date.now() - started,
      });
    };
    child.on('error', (err) => {
      output += String(err.message);
      done(null);
    });
    child.on('close', (code) => done(code));
  });
}

/** Probes every declared capability that has a probe (in parallel) and caches the results. */
export async function refreshCapabilities(home: Home, declared: Declared[], nowMs: () => number, timeoutMs = 10_000): Promise<Record<string, ProbeResult>> {
  const cache = readCapabilityCache(home);
  const probed = declared.filter((d) => d.probe);
  const results = await Promise.all(probed.map((d) => runProbe(d.probe!, home.root, timeoutMs, nowMs)));
  probed.forEach((d, i) => (cache.results[d.name] = results[i]));
  cache.checked_at = iso(nowMs());
  mkdirSync(dirname(capabilityCachePath(home)), { recursive: true });
  writeFileAtomic(capabilityCachePath(home), JSON.stringify(cache, null, 2) + '\n', join(home.local, 'tmp'));
  return Object.fromEntries(probed.map((d, i) => [d.name, results[i]]));
}
