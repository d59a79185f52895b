import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFrontierInput } from '../../src/store/frontier-input.js';
import { openHome } from '../../src/store/home.js';
import { project } from '../helpers/cli.js';

describe("the frontier's budget check", () => {
  it("reads each agent's AGENTS.md policy once per evaluation, and afresh in the next one", async () => {
    const p = await project();
    const agents = join(p.home, 'agents/main/AGENTS.md');
    const setPolicy = (b: string) => writeFileSync(agents, readFileSync(agents, 'utf8').replace(/policy:\n(  budget: .*\n)?/, `policy:\n  budget: "${b}"\n`));
    setPolicy('runs=1');
    const ids = [await p.create('a'), await p.create('b')];
    mkdirSync(join(p.home, 'local/runs'), { recursive: true });
    for (const [n, id] of ids.entries()) {
      writeFileSync(join(p.home, 'local/runs', `r-0000000${n}.json`), JSON.stringify({
        id: `r-0000000${n}`, agent: 'main', work_item: id, reason: 'operator_message', reasons: ['operator_message'], wakes: [], runner: 'command', watcher_pid: 1, pid: null,
        started_at: '2026-12-01T10:00:00Z', ended_at: '2026-12-01T10:00:01Z', duration_ms: 1000, status: 'ok', exit_code: 0, signal: null, error: null,
        session_id: null, resumed_session: null, tokens: null, cost_usd: null, revision_before: null, revision_after: null, progress: null, blocked: false, resumed_by: null,
      }));
    }
    const home = openHome({ cwd: p.dir, env: {} });
    const evaluation = async () => {
      const { input } = await loadFrontierInput(home, 'main', { holder: 'agent:main', nowMs: Date.parse('2026-12-01T11:00:00Z'), cwd: p.dir });
      const item = (id: string) => input.items.find((i) => i.id === id)!;
      return (id: string) => input.budget!(item(id))?.detail ?? null;
    };
    const one = await evaluation();
    expect(one(ids[0])).toContain('runs 1 of 1 spent');
    setPolicy('runs=5');
    // The same evaluation keeps the policy it read (once), for every item.
    expect(one(ids[1])).toContain('runs 1 of 1 spent');
    const two = await evaluation();
    expect(two(ids[1])).toBeNull();
  });
});
