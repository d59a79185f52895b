import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapabilityState } from '../core/frontier.js';
import { readAgent } from './agents.js';
import { fileKey, writeCache } from './cache-file.js';
import { agentDir, type Home } from './home.js';

/**
 * Capabilities: what this environment can do. Declared in holon.yaml (`capabilities: {name: {probe}}`)
 * and in an agent's AGENTS.md (`capabilities: [shell]`). A capability with a probe is available only
 * when its last probe (cached in local/cache/capabilities.json by `holon capabilities --refresh`)
 * passed with the same probe command; one without a probe is available because it is declared.
 */

export interface Declared {
  name: string;
  probe: string | null;
  sources: string[];
}

export interface ProbeResult {
  ok: boolean;
  probe: string;
  exit_code: number | null;
  output: string;
  checked_at: string;
  ms: number;
}

export interface CapabilityCache {
  version: 1;
  checked_at: string | null;
  results: Record<string, ProbeResult>;
}

export const capabilityCachePath = (home: Home) => join(home.local, 'cache', 'capabilities.json');

export function readCapabilityCache(home: Home): CapabilityCache {
  try {
    const c = JSON.parse(readFileSync(capabilityCachePath(home), 'utf8')) as CapabilityCache;
    if (c && c.version === 1 && c.results) return c;
  } catch {
    // No cache yet: nothing verified.
  }
  return { version: 1, checked_at: null, results: {} };
}

/**
 * The capabilities an agent's AGENTS.md lists, cached by the file's inode/size/mtime/ctime in
 * local/cache/agent-caps-A.json: the frontier reads them on every recomputation, and parsing the front
 * matter is what would otherwise load the yaml library.
 */
function agentCapabilities(home: Home, agent: string | null): string[] {
  if (!agent) return [];
  const file = join(agentDir(home, agent), 'AGENTS.md');
  const key = fileKey(file);
  const cache = join(home.local, 'cache', `agent-caps-${agent}.json`);
  try {
    const c = JSON.parse(readFileSync(cache, 'utf8')) as { key: string; caps: string[] };
    if (key && c.key === key) return c.caps;
  } catch {
    // No cache: parse.
  }
  let caps: string[] = [];
  try {
    const v = readAgent(home, agent).config.capabilities;
    caps = Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
  } catch {
    return [];
  }
  if (key) writeCache(cache, JSON.stringify({ key, caps }), join(home.local, 'tmp'));
  return caps;
}

export function declaredCapabilities(home: Home, agent: string | null): Declared[] {
  const out = new Map<string, Declared>();
  for (const [name, spec] of Object.entries(home.config.capabilities ?? {})) {
    const probe = spec && typeof spec === 'object' && spec.probe != null && String(spec.probe).trim() ? String(spec.probe) : null;
    out.set(name, { name, probe, sources: ['holon.yaml'] });
  }
  for (const name of agentCapabilities(home, agent)) {
    const d = out.get(name);
    if (d) d.sources.push('AGENTS.md');
    else out.set(name, { name, probe: null, sources: ['AGENTS.md'] });
  }
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function stateOf(d: Declared, cache: CapabilityCache): CapabilityState {
  if (!d.probe) return { available: true, status: 'declared', detail: `declared in ${d.sources.join(' and ')} (no probe)` };
  const r = cache.results[d.name];
  if (!r || r.probe !== d.probe) return { available: false, status: 'unverified', detail: 'declared, probe never ran: holon capabilities --refresh' };
  if (!r.ok) return { available: false, status: 'failed', detail: `probe failed at ${r.checked_at}${r.exit_code != null ? ` (exit ${r.exit_code})` : ''}` };
  return { available: true, status: 'verified', detail: `probe passed at ${r.checked_at}` };
}

/** What the frontier reads: never runs a probe. */
export function capabilityStates(home: Home, agent: string | null): Map<string, CapabilityState> {
  const cache = readCapabilityCache(home);
  return new Map(declaredCapabilities(home, agent).map((d) => [d.name, stateOf(d, cache)]));
}
