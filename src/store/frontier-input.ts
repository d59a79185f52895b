import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { FrontierInput, Workspace } from '../core/frontier.js';
import type { RecordProblem } from '../core/record-codec.js';
import { capabilityStates } from './capabilities.js';
import { agentDir, type Home } from './home.js';
import { loadGraph } from './graph-index.js';
import { readWorkspace } from './workspace.js';

/** Resources of an agent's admitted events (agents/A/events/ID.yaml with status admitted). */
export function admittedEventResources(home: Home, agent: string): Set<string> {
  const dir = join(agentDir(home, agent), 'events');
  const out = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  } catch {
    return out;
  }
  for (const f of names) {
    try {
      const d = parseYaml(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown> | null;
      if (d && d.status === 'admitted' && d.resource != null) out.add(String(d.resource));
    } catch {
      // A broken event record is `holon check`'s to report; it satisfies nothing here.
    }
  }
  return out;
}

/**
 * Everything the frontier evaluator reads, assembled lazily: git runs only when an item names a repo
 * or branch, event folders are read only when a resume_when names an event.
 */
export function loadFrontierInput(home: Home, agent: string, opts: { holder: string; nowMs: number; cwd: string }): { input: FrontierInput; problems: RecordProblem[] } {
  const loaded = loadGraph(home);
  let ws: Workspace | undefined;
  const events = new Map<string, Set<string>>();
  const input: FrontierInput = {
    agent,
    holder: opts.holder,
    nowMs: opts.nowMs,
    items: loaded.items,
    capabilities: capabilityStates(home, agent),
    workspace: () => (ws ??= readWorkspace(opts.cwd)),
    admittedEvents: (a) => {
      let s = events.get(a);
      if (!s) events.set(a, (s = admittedEventResources(home, a)));
      return s;
    },
  };
  return { input, problems: loaded.problems };
}
