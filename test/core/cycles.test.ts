import { describe, expect, it } from 'vitest';
import { checkGraph, cycleGroups, cycleText, cyclesThrough, type GraphNode } from '../../src/core/graph-check.js';

const n = (id: string, depends_on: string[] = []): GraphNode => ({ id, file: `${id}.md`, depends_on, successors: [], superseded_by: null });
const byIdOf = (nodes: GraphNode[]) => new Map(nodes.map((x) => [x.id, x]));

/** A small seeded generator (mulberry32): the same graphs on every run. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Whether `id` reaches itself through depends_on (the definition, by brute force). */
function onCycle(id: string, byId: Map<string, GraphNode>): boolean {
  const seen = new Set<string>();
  const todo = [...(byId.get(id)?.depends_on ?? [])];
  while (todo.length) {
    const x = todo.pop()!;
    if (x === id) return true;
    if (seen.has(x) || !byId.has(x)) continue;
    seen.add(x);
    todo.push(...byId.get(x)!.depends_on);
  }
  return false;
}

describe('dependency cycles', () => {
  it('finds an id whose cycle runs through a part of the graph walked before (the walk order does not matter)', () => {
    // m1 -> m2 -> m3 -> m1, and m1 -> z0 -> m3: z0 is on the cycle z0 -> m3 -> m1 -> z0.
    const nodes = [n('w-m1', ['w-m2', 'w-z0']), n('w-m2', ['w-m3']), n('w-m3', ['w-m1']), n('w-z0', ['w-m3'])];
    for (const order of [nodes, [...nodes].reverse(), [nodes[3], nodes[0], nodes[2], nodes[1]]]) {
      const through = cyclesThrough(order, byIdOf(order));
      expect([...through.keys()].sort()).toEqual(['w-m1', 'w-m2', 'w-m3', 'w-z0']);
      expect(cycleText(through.get('w-z0')!, 'w-z0')).toBe('w-z0 -> w-m3 -> w-m1 -> w-z0');
      expect(cycleGroups(order, byIdOf(order))).toEqual([['w-m1', 'w-m2', 'w-m3', 'w-z0']]);
    }
  });

  it('an item that depends on itself is on a cycle; one that only depends on a cycle is not', () => {
    const nodes = [n('a', ['a']), n('b', ['c']), n('c', ['b']), n('d', ['b', 'zz'])];
    const through = cyclesThrough(nodes, byIdOf(nodes));
    expect(cycleText(through.get('a')!)).toBe('a -> a');
    expect(cycleText(through.get('c')!, 'c')).toBe('c -> b -> c');
    expect(through.has('d')).toBe(false);
  });

  it('on random graphs: exactly the ids that reach themselves, each with a real cycle through it, the same in any order', () => {
    const rand = rng(7);
    for (let g = 0; g < 300; g++) {
      const size = 2 + Math.floor(rand() * 12);
      const ids = Array.from({ length: size }, (_, i) => `w-${i.toString(36)}`);
      const nodes = ids.map((id) => n(id, ids.filter(() => rand() < 1.6 / size).concat(rand() < 0.1 ? ['w-gone'] : [])));
      const byId = byIdOf(nodes);
      const through = cyclesThrough(nodes, byId);
      for (const id of ids) {
        expect(through.has(id), `${id} in ${JSON.stringify(nodes.map((x) => [x.id, x.depends_on]))}`).toBe(onCycle(id, byId));
        const cycle = through.get(id);
        if (!cycle) continue;
        expect(cycle).toContain(id);
        expect(new Set(cycle).size).toBe(cycle.length);
        cycle.forEach((x, i) => expect(byId.get(x)!.depends_on).toContain(cycle[(i + 1) % cycle.length]));
      }
      const shuffled = [...nodes].sort(() => rand() - 0.5);
      expect(cyclesThrough(shuffled, byIdOf(shuffled))).toEqual(through);
    }
  });

  it('holon check reports each group of items on cycles once, with the ids not on the cycle it prints', () => {
    const nodes = [n('a', ['b']), n('b', ['a', 'c']), n('c', ['b']), n('x', ['y']), n('y', ['x'])];
    const msgs = checkGraph(nodes, () => 1).map((p) => p.message);
    expect(msgs).toEqual(['dependency cycle: a -> b -> a (c is on a cycle with these too)', 'dependency cycle: x -> y -> x']);
  });

  it('a chain of 100,000 items closed into one cycle is walked without overflowing the stack', () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `w-${i}`);
    const nodes = ids.map((id, i) => n(id, [ids[(i + 1) % ids.length]]));
    const through = cyclesThrough(nodes, byIdOf(nodes));
    expect(through.size).toBe(ids.length);
    expect(through.get('w-5')!.length).toBe(ids.length);
  });
});
