import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/core/run-record.js';
import { spendingSignature } from '../../src/store/budget.js';
import type { Home } from '../../src/store/home.js';
import { runsDir, writeRun } from '../../src/store/runs.js';
import { tempDir } from '../helpers/cli.js';

const run = (id: string, o: Partial<RunRecord> = {}): RunRecord => ({
  id, agent: 'main', work_item: 'w-1', reason: 'new_work', reasons: ['new_work'], wakes: [], runner: 'command', watcher_pid: 1, pid: null,
  started_at: '2026-12-01T10:00:00Z', ended_at: '2026-12-01T10:00:01Z', duration_ms: 1000, status: 'ok', exit_code: 0, signal: null, error: null,
  session_id: null, resumed_session: null, tokens: null, cost_usd: null, revision_before: null, revision_after: null, progress: null, blocked: false, resumed_by: null, ...o,
});

/** Sets a folder's times a minute back, as if its last change were long past (older than the racy window). */
const age = (dir: string) => utimesSync(dir, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

describe('spendingSignature: what the cached frontier checks before it trusts spending', () => {
  it('answers with one stat of local/runs once the folder is old, and changes with every run record holon writes', () => {
    const root = tempDir('holon-spend-');
    const home = { dir: root, root, local: join(root, 'local') } as Home;
    mkdirSync(join(root, 'agents'), { recursive: true });
    writeRun(home, run('r-00000001'));
    // Changed just now: racy, so every record is named with its key.
    expect(spendingSignature(home)).toMatch(/^r-00000001\.json:\d+/);
    age(runsDir(home));
    const old = spendingSignature(home);
    expect(old).toMatch(/^dir:/);
    expect(spendingSignature(home)).toBe(old);
    // A new record, and a record rewritten in place of the old one (same count), each change it.
    writeRun(home, run('r-00000002', { tokens: { uncached_input: 5, cache_read: 0, cache_write: 0, output: 5, reasoning: 0 } as never }));
    const two = spendingSignature(home);
    expect(two).not.toBe(old);
    age(runsDir(home));
    const agedTwo = spendingSignature(home);
    writeRun(home, run('r-00000002', { status: 'error' }));
    expect(spendingSignature(home)).not.toBe(agedTwo);
    age(runsDir(home));
    expect(spendingSignature(home)).not.toBe(agedTwo);
  });

  it("names a thread's record and each of its commands by its own key: committed records may be edited in place by hand", () => {
    const root = tempDir('holon-spend-');
    const home = { dir: root, root, local: join(root, 'local') } as Home;
    const thread = join(root, 'agents/main/threads/t-1');
    mkdirSync(join(thread, 'commands'), { recursive: true });
    writeFileSync(join(root, 'agents/main/AGENTS.md'), '# main\n');
    writeFileSync(join(thread, 'thread.yaml'), 'id: "t-1"\n');
    writeFileSync(join(thread, 'commands', 'c-1.yaml'), 'id: "c-1"\nusage: null\n');
    for (const d of [thread, join(thread, 'commands')]) age(d);
    const before = spendingSignature(home);
    // An edit in place (the folders' stamps do not move), of the same length.
    writeFileSync(join(thread, 'commands', 'c-1.yaml'), 'id: "c-1"\nusage: 1234\n');
    for (const d of [thread, join(thread, 'commands')]) age(d);
    expect(spendingSignature(home)).not.toBe(before);
    const next = spendingSignature(home);
    writeFileSync(join(thread, 'thread.yaml'), 'id: "t-2"\n');
    for (const d of [thread, join(thread, 'commands')]) age(d);
    expect(spendingSignature(home)).not.toBe(next);
  });
});
