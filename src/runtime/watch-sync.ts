import { releaseLeases, takeLeases, watcherHolder, type LeaseRound } from '../store/watch-lease.js';
import { sharedChange } from '../store/sync-claims.js';
import type { Home } from '../store/home.js';

/**
 * `holon watch --sync EVERY`: every period (and after each run) the watcher syncs the home and
 * renews its leases in one pushed change; it runs only the agents whose lease it holds.
 */
export class WatchSync {
  readonly served = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private busy: Promise<void> | null = null;
  private again = false;
  private readonly holder: string;
  private said = '';
  private ourExpiry = 0;

  constructor(readonly home: Home, readonly agents: () => string[], readonly everyMs: number, readonly log: (line: string) => void) {
    this.holder = watcherHolder(home);
  }

  /** A lease outlives three missed rounds (and 10 s at least): one slow push does not hand the agent over. */
  get ttlMs(): number {
    return Math.max(3 * this.everyMs, 10_000);
  }

  /** Whether this watcher may run the agent now: it holds the lease and the lease has not run out. */
  serves(agent: string): boolean {
    return this.served.has(agent) && Date.now() < this.ourExpiry - 1000;
  }

  start(onChange: () => void): void {
    this.timer = setInterval(() => void this.round().then(onChange), this.everyMs);
  }

  /** One round; a round asked for while one runs is done right after it. */
  round(): Promise<void> {
    if (this.busy) {
      this.again = true;
      return this.busy;
    }
    this.busy = (async () => {
      do {
        this.again = false;
        await this.roundOnce();
      } while (this.again);
    })().finally(() => {
      this.busy = null;
    });
    return this.busy;
  }

  private async roundOnce(): Promise<void> {
    let r: LeaseRound;
    const started = Date.now();
    try {
      r = await sharedChange(this.home, 'watch lease', async () => takeLeases(this.home, this.agents(), this.holder, Date.now(), this.ttlMs), (x) => x.files, { retries: 3, say: this.log });
      // The lease pushed was written during the round: count its time from the round's start.
      this.ourExpiry = started + this.ttlMs;
    } catch (err) {
      // Not pushed: keep serving only while the lease the remote last saw is still ours and live.
      if (Date.now() >= this.ourExpiry) this.served.clear();
      this.log(`sync failed: ${(err as Error).message}${this.served.size ? '' : '; serving no agent until a sync succeeds'}`);
      return;
    }
    const was = [...this.served].sort().join(',');
    this.served.clear();
    for (const a of r.served) this.served.add(a);
    const line = `serving ${r.served.join(', ') || 'no agent'}${r.elsewhere.length ? `; ${r.elsewhere.map((e) => `${e.agent} is served by ${e.lease.holder} until ${e.lease.expires_at}`).join('; ')}` : ''}`;
    if (line !== this.said || was !== [...this.served].sort().join(',')) this.log(line);
    this.said = line;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.busy;
    try {
      await sharedChange(this.home, 'watch lease release', async () => ({ files: releaseLeases(this.home, this.agents(), this.holder, Date.now()) }), (x) => x.files, { retries: 3, say: this.log });
    } catch (err) {
      this.log(`could not release the watch leases: ${(err as Error).message} (they expire on their own)`);
    }
  }
}
