import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { WorkItem } from '../core/types.js';
import { gitRun, git, lines } from './sync-git.js';
import type { SyncTarget } from './sync.js';
import { parseWorkText } from './work-store.js';

/** What a sync brought in, read from the commits it merged: new items, woken waits, decisions. */
export interface Incoming {
  commits: number;
  files: string[];
  new_items: Array<{ id: string; agent: string; title: string }>;
  changed_items: string[];
  woken_waits: Array<{ work_item: string; wait: string; resource: string; status: string }>;
  decisions: Array<{ gate: string; scope: string; decision: string }>;
}

const WORK = /agents\/([^/]+)\/work\/([^/]+)\.md$/;

function itemAt(top: string, rev: string, path: string): WorkItem | null {
  const r = gitRun(top, ['show', `${rev}:${path}`]);
  if (r.code !== 0) return null;
  try {
    return parseWorkText(r.stdout, path, basename(path, '.md')).item;
  } catch {
    return null;
  }
}

function itemNow(top: string, path: string): WorkItem | null {
  try {
    return parseWorkText(readFileSync(join(top, path), 'utf8'), path, basename(path, '.md')).item;
  } catch {
    return null;
  }
}

export function describeIncoming(t: SyncTarget, before: string, after: string, into: Incoming): void {
  into.commits += Number(git(t.top, ['rev-list', '--count', `${before}..${after}`]));
  for (const row of lines(git(t.top, ['diff', '--name-status', '--no-renames', before, after, '--', t.rel]))) {
    const [status, path] = row.split('\t');
    if (!into.files.includes(path)) into.files.push(path);
    const m = WORK.exec(path);
    if (!m || status === 'D') continue;
    const now = itemNow(t.top, path);
    if (!now) continue;
    if (status === 'A') {
      into.new_items.push({ id: now.id, agent: m[1], title: now.title });
      continue;
    }
    if (!into.changed_items.includes(now.id)) into.changed_items.push(now.id);
    const was = itemAt(t.top, before, path);
    const old = new Map((was?.waits ?? []).map((w) => [w.id, w.status]));
    for (const w of now.waits) {
      if (old.get(w.id) === 'active' && w.status !== 'active') into.woken_waits.push({ work_item: now.id, wait: w.id, resource: w.resource, status: w.status });
    }
    const d = now.decision_scope;
    if (d?.decision && d.decision !== was?.decision_scope?.decision) into.decisions.push({ gate: now.id, scope: d.scope, decision: d.decision });
  }
}
