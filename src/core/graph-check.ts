import type { RecordProblem } from './record-codec.js';

/** The part of a WorkItem the graph checks need. */
export interface GraphNode {
  id: string;
  file: string;
  depends_on: string[];
  successors: string[];
  superseded_by: string | null;
}

/**
 * Whole-home checks that no single record can see: duplicate ids, dangling references, dependency
 * cycles. `line(file, key)` finds the line to point at.
 */
export function checkGraph(nodes: GraphNode[], line: (file: string, key: string) => number): RecordProblem[] {
  const problems: RecordProblem[] = [];
  const byId = new Map<string, GraphNode>();
  for (const n of nodes) {
    const first = byId.get(n.id);
    if (first) {
      problems.push({ file: n.file, line: line(n.file, 'id'), message: `duplicate id "${n.id}" (also in ${first.file})`, fix: 'give one of them a new id (rename the file and its id field), or delete the copy' });
    } else byId.set(n.id, n);
  }
  for (const n of nodes) {
    for (const key of ['depends_on', 'successors'] as const) {
      for (const ref of n[key]) {
        if (!byId.has(ref)) problems.push({ file: n.file, line: line(n.file, key), message: `${key} names "${ref}", which does not exist`, fix: `remove it from ${key}, or restore the missing WorkItem` });
      }
    }
    if (n.superseded_by && !byId.has(n.superseded_by)) {
      problems.push({ file: n.file, line: line(n.file, 'superseded_by'), message: `superseded_by names "${n.superseded_by}", which does not exist`, fix: 'point it at the replacing WorkItem' });
    }
  }
  for (const cycle of findCycles(nodes, byId)) {
    const n = byId.get(cycle[0])!;
    problems.push({ file: n.file, line: line(n.file, 'depends_on'), message: `dependency cycle: ${[...cycle, cycle[0]].join(' -> ')}`, fix: 'remove one of these depends_on entries' });
  }
  return problems;
}

/** Each dependency cycle once, as the list of ids on it (iterative DFS: safe on deep chains). */
export function findCycles(nodes: GraphNode[], byId: Map<string, GraphNode>): string[][] {
  const state = new Map<string, 1 | 2>();
  const cycles: string[][] = [];
  for (const start of nodes) {
    if (state.has(start.id)) continue;
    const stack: Array<{ id: string; next: number }> = [{ id: start.id, next: 0 }];
    const path: string[] = [start.id];
    state.set(start.id, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const deps = byId.get(top.id)?.depends_on ?? [];
      if (top.next < deps.length) {
        const d = deps[top.next++];
        if (!byId.has(d)) continue;
        const s = state.get(d);
        if (s === 1) cycles.push(path.slice(path.indexOf(d)));
        else if (!s) {
          state.set(d, 1);
          stack.push({ id: d, next: 0 });
          path.push(d);
        }
      } else {
        state.set(top.id, 2);
        stack.pop();
        path.pop();
      }
    }
  }
  return cycles;
}
