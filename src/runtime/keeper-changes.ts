/**
 * What the index keeper (index-keeper.ts) knows of changed work files, without the watching: per agent,
 * each `.md` name with the generation of its last change, and what its host has been told.
 *
 * The host is told (a `changed` message: it computes the frontier answers again, frontier-refresh.ts)
 * after any change an event reported. A change a sweep found that no event reported is news too. But a
 * file a sweep found moved after an event had already told the host is quiet: the refresh that event
 * brought may have read it before this move, so no refresh is known to follow what it holds now. An
 * answer names such files `untold`, and a command stores what it computes instead of leaving it to the
 * refresh (ops/frontier-patched.ts leftToKeeper). The next tell covers them: the refresh it brings
 * reads every file.
 */
export class KeeperChanges {
  /** Per agent: name -> generation of its last change. */
  private readonly byAgent = new Map<string, Map<string, number>>();
  /** Per agent: names noted with no news since the host was last told. */
  private readonly quiet = new Map<string, Set<string>>();
  /** A change the host has not been told of. */
  private news = false;

  /** `name` of `agent` changed at generation `gen`; `news`: one the host has not heard of. */
  note(agent: string, name: string, gen: number, news = true): void {
    let m = this.byAgent.get(agent);
    if (!m) this.byAgent.set(agent, (m = new Map()));
    m.set(name, gen);
    if (news) {
      this.news = true;
      // The tell this brings covers what the file holds now.
      this.quiet.get(agent)?.delete(name);
      return;
    }
    let q = this.quiet.get(agent);
    if (!q) this.quiet.set(agent, (q = new Set()));
    q.add(name);
  }

  /**
   * What a sweep found: `moved`, the names whose numbers moved since the sweep that started at
   * generation `sweptAt`. A name with no event since then changed with no event, which is news (such
   * names are returned, for the log); one with an event since was told of already, and is quiet. Each
   * is noted at a new generation from `next`.
   */
  swept(agent: string, moved: string[], sweptAt: number, next: () => number): string[] {
    const unseen: string[] = [];
    for (const n of moved) {
      const news = this.lastAt(agent, n) <= sweptAt;
      if (news) unseen.push(n);
      this.note(agent, n, next(), news);
    }
    return unseen;
  }

  /** The generation of the last change of `name` noted in this epoch; -1: none. */
  lastAt(agent: string, name: string): number {
    return this.byAgent.get(agent)?.get(name) ?? -1;
  }

  /** Forgets an agent's names (its watch was dropped: its next listing is in full). */
  forget(agent: string): void {
    this.byAgent.delete(agent);
    this.quiet.delete(agent);
  }

  /** A new epoch: every name noted is void, and the host is to be told (what it knows came from the old one). */
  renew(): void {
    this.byAgent.clear();
    this.news = true;
  }

  /** Whether the host is to be told now; if so, it counts as told, quiet names included. */
  takeNews(): boolean {
    if (!this.news) return false;
    this.news = false;
    this.quiet.clear();
    return true;
  }

  /**
   * The names changed after each agent's own mark in `since` (an agent with no finite mark is left out,
   * an agent with no such name too), and of those the quiet ones; null past `max` names in all.
   */
  since(since: Record<string, number>, max: number): { changed: Record<string, string[]>; untold?: Record<string, string[]> } | null {
    // No prototype: an agent may be called `constructor` or `__proto__`.
    const changed = Object.create(null) as Record<string, string[]>;
    let untold: Record<string, string[]> | undefined;
    let total = 0;
    for (const [a, m] of this.byAgent) {
      const mark = Object.hasOwn(since, a) ? since[a] : NaN;
      if (!Number.isFinite(mark)) continue;
      const list: string[] = [];
      for (const [n, g] of m) if (g > mark) list.push(n);
      if (!list.length) continue;
      total += list.length;
      if (total > max) return null;
      changed[a] = list;
      const hush = this.quiet.get(a);
      const hushed = hush ? list.filter((n) => hush.has(n)) : [];
      if (hushed.length) (untold ??= Object.create(null) as Record<string, string[]>)[a] = hushed;
    }
    return untold ? { changed, untold } : { changed };
  }
}
