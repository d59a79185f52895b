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
  // One problem per group of items that depend on each other round a cycle: its first id's shortest
  // cycle, and the other ids of the group (each on a cycle with these).
  for (const group of cycleGroups(nodes, byId)) {
    const cycle = shortestCycle(group[0], new Set(group), byId);
    const others = group.filter((id) => !cycle.includes(id));
    const n = byId.get(group[0])!;
    const also = others.length ? ` (${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} on a cycle with these too)` : '';
    problems.push({ file: n.file, line: line(n.file, 'depends_on'), message: `dependency cycle: ${cycleText(cycle)}${also}`, fix: 'remove one of these depends_on entries' });
  }
  return problems;
}

/**
 * The groups of ids that reach each other through depends_on (strongly connected components with a
 * cycle: two or more ids, or one that depends on itself), each sorted. Every id on any dependency
 * cycle is in one, whatever order the nodes come in: a walk that reports only the cycles it happens to
 * close misses an id whose cycle runs through a part of the graph it finished before (Tarjan's
 * algorithm, iterative: safe on deep chains). Ids without an entry in `byId` end the walk.
 */
export function cycleGroups(nodes: GraphNode[], byId: Map<string, GraphNode>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const held = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const enter = (id: string) => {
    index.set(id, index.size);
    low.set(id, index.size - 1);
    stack.push(id);
    held.add(id);
  };
  for (const start of nodes) {
    if (index.has(start.id) || !byId.has(start.id)) continue;
    enter(start.id);
    const walk: Array<{ id: string; next: number }> = [{ id: start.id, next: 0 }];
    while (walk.length) {
      const top = walk[walk.length - 1];
      const deps = byId.get(top.id)!.depends_on;
      if (top.next < deps.length) {
        const d = deps[top.next++];
        if (!byId.has(d)) continue;
        if (!index.has(d)) {
          enter(d);
          walk.push({ id: d, next: 0 });
        } else if (held.has(d)) low.set(top.id, Math.min(low.get(top.id)!, index.get(d)!));
        continue;
      }
      walk.pop();
      if (walk.length) {
        const up = walk[walk.length - 1].id;
        low.set(up, Math.min(low.get(up)!, low.get(top.id)!));
      }
      if (low.get(top.id) !== index.get(top.id)) continue;
      const group: string[] = [];
      for (let id = ''; id !== top.id; ) {
        id = stack.pop()!;
        held.delete(id);
        group.push(id);
      }
      if (group.length > 1 || deps.includes(top.id)) groups.push(group.sort());
    }
  }
  return groups;
}

/** A shortest cycle through `from` inside `group` (breadth first, following depends_on in its order), starting at `from`. */
function shortestCycle(from: string, group: Set<string>, byId: Map<string, GraphNode>): string[] {
  const parent = new Map<string, string>();
  const queue = [from];
  for (let q = 0; q < queue.length; q++) {
    const id = queue[q];
    for (const d of byId.get(id)!.depends_on) {
      if (d === from) {
        const back: string[] = [];
        for (let at: string | undefined = id; at !== undefined; at = parent.get(at)) back.push(at);
        return back.reverse();
      }
      if (group.has(d) && d !== from && !parent.has(d)) {
        parent.set(d, id);
        queue.push(d);
      }
    }
  }
  return [from]; // not reached: every id of a group is on a cycle inside it
}

/**
 * Every id on a dependency cycle, with one cycle through it (its ids in order; the last depends on the
 * first). The same graph gives the same cycles whatever order its nodes are listed in: each group is
 * taken in id order, and an id gets a shortest cycle through it unless one found before passes through it.
 */
export function cyclesThrough(nodes: GraphNode[], byId: Map<string, GraphNode>): Map<string, string[]> {
  const through = new Map<string, string[]>();
  for (const group of cycleGroups(nodes, byId)) {
    const members = new Set(group);
    for (const id of group) {
      if (through.has(id)) continue;
      const cycle = shortestCycle(id, members, byId);
      for (const on of cycle) if (!through.has(on)) through.set(on, cycle);
    }
  }
  return through;
}

/** A cycle written out from `id` (one of its ids), back to `id`: "a -> b -> a". */
export function cycleText(cycle: string[], id: string = cycle[0]): string {
  const at = Math.max(0, cycle.indexOf(id));
  return [...cycle.slice(at), ...cycle.slice(0, at), cycle[at]].join(' -> ');
}
