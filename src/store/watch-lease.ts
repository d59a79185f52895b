import { randomBytes } from './random.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { yamlValue } from '../core/record-codec.js';
import { iso } from '../core/time.js';
import { parseYamlMap } from '../core/yaml-lib.js';
import { writeFileAtomic } from './atomic-write.js';
import { agentDir, type Home } from './home.js';

/**
 * Which watcher serves an agent when clones on several machines run `holon watch --sync`: a lease in
 * the shared home (agents/A/watcher.yaml, committed), taken when absent or expired, renewed by every
 * sync round of its holder, released on a clean stop. A killed watcher's lease runs out and another
 * takes over. The push of the lease is the compare-and-swap (store/sync-claims).
 */
export interface WatchLease {
  holder: string;
  host: string;
  pid: number;
  renewed_at: string;
  expires_at: string;
}

export const leaseFile = (home: Home, agent: string) => join(agentDir(home, agent), 'watcher.yaml');

/** This clone's id: random, made once, kept in local/ (two clones on one host are two machines). */
export function machineId(home: Home): string {
  const file = join(home.local, 'machine-id');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(home.local, { recursive: true });
    const id = randomBytes(6).toString('hex');
    writeFileSync(file, id + '\n', { flag: 'wx' });
    return readFileSync(file, 'utf8').trim();
  }
}

export const watcherHolder = (home: Home) => `${hostname() || 'host'}/${machineId(home)}/${process.pid}`;

export function readLease(home: Home, agent: string): WatchLease | null {
  try {
    const d = parseYamlMap(readFileSync(leaseFile(home, agent), 'utf8')) as WatchLease | null;
    return d && d.holder ? d : null;
  } catch {
    return null;
  }
}

export const leaseLive = (l: WatchLease | null, nowMs: number) => Boolean(l && Date.parse(l.expires_at) > nowMs);

function write(home: Home, agent: string, l: WatchLease): string {
  const file = leaseFile(home, agent);
  writeFileAtomic(file, yamlValue(l) + '\n', join(home.local, 'tmp'));
  return file;
}

export interface LeaseRound {
  served: string[];
  elsewhere: Array<{ agent: string; lease: WatchLease }>;
  files: string[];
}

/** Takes or renews the leases of `agents` that no other live watcher holds. */
export function takeLeases(home: Home, agents: string[], holder: string, nowMs: number, ttlMs: number): LeaseRound {
  const r: LeaseRound = { served: [], elsewhere: [], files: [] };
  for (const agent of agents) {
    const cur = readLease(home, agent);
    if (cur && cur.holder !== holder && leaseLive(cur, nowMs)) {
      r.elsewhere.push({ agent, lease: cur });
      continue;
    }
    r.files.push(write(home, agent, { holder, host: hostname() || 'host', pid: process.pid, renewed_at: iso(nowMs), expires_at: iso(nowMs + ttlMs) }));
    r.served.push(agent);
  }
  return r;
}

/** Ends this watcher's leases now (a clean stop), so another machine takes over at once. */
export function releaseLeases(home: Home, agents: string[], holder: string, nowMs: number): string[] {
  const files: string[] = [];
  for (const agent of agents) {
    const cur = readLease(home, agent);
    if (cur?.holder === holder && leaseLive(cur, nowMs)) files.push(write(home, agent, { ...cur, expires_at: iso(nowMs) }));
  }
  return files;
}
