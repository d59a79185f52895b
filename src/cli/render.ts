import { isAbsolute, relative } from 'node:path';
import { humanDuration } from '../core/time.js';
import type { Wait, WorkItem } from '../core/types.js';
import { dim, table, truncate, yellow } from './output.js';
import { isLive, waitKey } from '../core/wait-matching.js';

/** One-line summary of what an item waits for: "external:ci:run/7731 (recheck in 3h)", "timer:t-1 (due in 2h)". */
export function waitSummary(waits: Wait[], nowMs: number): string {
  const live = waits.filter(isLive);
  if (!live.length) return '';
  return live
    .map((w) => {
      const res = waitKey(w);
      if (w.status === 'triggered') return `${res} (triggered)`;
      if (w.due_at) return `${res} (due in ${humanDuration(Math.max(0, Date.parse(w.due_at) - nowMs))})`;
      return w.recheck_at ? `${res} (recheck in ${humanDuration(Date.parse(w.recheck_at) - nowMs)})` : res;
    })
    .join(', ');
}

/** The `holon list` table. */
export function itemTable(items: WorkItem[], focus: string | null, nowMs: number): string {
  const rows = items.map((i) => {
    const waiting = waitSummary(i.waits, nowMs);
    const notes = [waiting && yellow(`waits ${waiting}`), i.blocker ? `blocked: ${i.blocker.reason}` : ''].filter(Boolean).join('; ');
    return [i.id === focus ? '*' : ' ', i.id, i.status, i.priority ?? '-', i.class.replace('_task', '').replace('continuous_', ''), i.role ? truncate(i.role, 16) : '-', truncate(i.title, 60) + (notes ? dim('  ' + notes) : '')];
  });
  return table([[' ', 'ID', 'STATUS', 'PRI', 'CLASS', 'ROLE', 'TITLE'], ...rows]);
}

/** A path as a person reads it: relative when it is under the cwd (or one level up), else absolute. */
export function relPath(cwd: string, file: string): string {
  const r = relative(cwd, file);
  if (r === '') return '.';
  return r.startsWith('../..') || isAbsolute(r) ? file : r;
}
