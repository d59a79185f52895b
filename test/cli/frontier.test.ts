import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

type P = Awaited<ReturnType<typeof project>>;

/** Edits a record by hand, the way a person would. */
function handEdit(p: P, id: string, from: string | RegExp, to: string): void {
  const f = p.workFile(id);
  const text = readFileSync(f, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`handEdit: ${String(from)} not found in ${f}`);
  writeFileSync(f, next);
}

const setAuthority = (p: P, agent: string, scopes: string[]) => {
  const f = join(p.home, 'agents', agent, 'AGENTS.md');
  writeFileSync(f, readFileSync(f, 'utf8').replace(/decide: \[\]/, `decide: ${JSON.stringify(scopes)}`));
};

describe('frontier, explain and decide (seed 002)', () => {
  it('keeps the gated P0 out, runs the independent P1, and shows the gate to decide', async () => {
    const p = await project();
    expect((await p.h(['capabilities', '--refresh'])).code).toBe(0);
    const gate = await p.create('May the public export API change?', ['--class', 'user_gate', '--decision-scope', 'api_change:action:export', '--priority', 'P0']);
    const api = await p.create('Change the export API', ['--priority', 'P0', '--needs-decision', 'api_change:action:export']);
    const test = await p.create('Characterization test of the export', ['--priority', 'P1', '--requires', 'shell']);
    const f = await p.json(['frontier']);
    expect(f.runnable.map((r: any) => r.id)).toEqual([test]);
    expect(f.not_runnable).toMatchObject([{ id: api, code: 'gate_pending' }]);
    expect(f.needs_decision).toMatchObject([{ id: gate, scope: 'api_change:action:export', blocks: [api] }]);
    expect(f.counts).toMatchObject({ runnable: 1, needs_decision: 1, not_runnable: 1, closed: 0, total: 3 });

    const ex = await p.json(['explain', api]);
    expect(ex.checks.map((c: any) => [c.check, c.pass, c.code])).toEqual([
      ['status', true, 'ok'], ['dependencies', true, 'ok'], ['waits', true, 'ok'], ['gates', false, 'gate_pending'],
      ['claims', true, 'ok'], ['capabilities', true, 'ok'], ['workspace', true, 'ok'], ['freshness', true, 'ok'],
    ]);
    expect((await p.h(['explain', api])).stdout).toMatch(/FAIL\s+gates\s+gate_pending/);
    expect((await p.h(['explain', api, '--agent', 'nobody'])).code).toBe(4);
    expect((await p.h(['explain', api], { HOLON_AGENT: 'nobody' })).code).toBe(4);

    // An agent run may not decide unless AGENTS.md delegates the scope; a user_action never decides.
    const asAgent = await p.h(['decide', gate, '--approve'], { HOLON_ACTOR: 'agent:main' });
    expect(asAgent.code).toBe(3);
    expect(asAgent.stderr).toMatch(/operator authority/);
    // Nor may it drop the need from its item: that would bypass the gate.
    const dropped = await p.h(['edit', api, '--remove-needs-decision', 'api_change:action:export'], { HOLON_ACTOR: 'agent:main' });
    expect(dropped.code).toBe(3);
    expect(dropped.stderr).toMatch(/may not drop the decision api_change:action:export: decisions need operator authority/);
    expect((await p.json(['show', api])).needs_decision).toEqual(['api_change:action:export']);
    const action = await p.create('Ask legal about the export', ['--class', 'user_action']);
    expect((await p.h(['decide', action, '--approve'])).code).toBe(3);
    setAuthority(p, 'main', ['api_change:lane:export']);
    const delegated = await p.h(['decide', gate, '--approve', '--note', 'product agreed'], { HOLON_ACTOR: 'agent:main' });
    expect(delegated.code).toBe(0);
    const g = await p.json(['show', gate]);
    expect(g).toMatchObject({ status: 'done', decision_scope: { decision: 'approved', decided_by: 'agent:main', note: 'product agreed' } });

    const after = await p.json(['frontier']);
    expect(after.runnable.map((r: any) => r.id)).toEqual([api, test]);
    expect(after.needs_action.map((r: any) => r.id)).toEqual([action]);
    expect(after.needs_decision).toEqual([]);

    // Reject blocks the covered items.
    expect((await p.h(['decide', gate, '--reject', '--note', 'legal said no'])).code).toBe(0);
    expect((await p.json(['explain', api])).code).toBe('gate_rejected');
    // Neither or both of --approve/--reject is a usage error (exit 2), as SPEC 7 says.
    expect((await p.h(['decide', gate])).code).toBe(2);
    expect((await p.h(['decide', gate, '--approve', '--reject'])).code).toBe(2);
  });

  it('pick without an id claims the top runnable item, and says what to decide when nothing is runnable', async () => {
    const p = await project();
    const gate = await p.create('Release?', ['--class', 'user_gate', '--decision-scope', 'release:project:app']);
    const rel = await p.create('Publish the release', ['--priority', 'P0', '--needs-decision', 'release:action:app']);
    const none = await p.h(['pick']);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/nothing is runnable/);
    expect(none.stderr).toContain(gate);
    expect(none.stderr).toContain(`blocks ${rel}`);
    const low = await p.create('Tidy the changelog', ['--priority', 'P3']);
    const picked = await p.h(['pick', '--ttl', '30m'], { HOLON_NOW: '2026-11-30T06:00:00Z' });
    expect(picked.code).toBe(0);
    expect(picked.stdout.trim()).toBe(`${low}  Tidy the changelog`);
    const shown = await p.json(['show', low]);
    expect(shown).toMatchObject({ focus: true, claim: { holder: 'agent:main', expires_at: '2026-11-30T06:30:00Z', version: 1, epoch: 1 } });
    // With an id pick only sets the focus: --ttl there is a usage error, not silently dropped.
    const withId = await p.h(['pick', rel, '--ttl', '30m']);
    expect(withId.code).toBe(2);
    expect(withId.stderr).toContain(`holon claim ${rel} --ttl 30m`);
  });

  it('agrees with explain on every item, and reading writes nothing', async () => {
    const p = await project();
    const a = await p.create('A', ['--priority', 'P2']);
    const b = await p.create('B', ['--depends-on', a]);
    const c = await p.create('C', ['--requires', 'gpu']);
    const d = await p.create('D', ['--exclude', 'main']);
    const e = await p.create('E', ['--resume-when', 'at:2027-01-01T00:00:00Z']);
    const u = await p.create('U', ['--class', 'user_action']);
    const m = await p.create('M', ['--class', 'continuous_monitor']);
    const files = [a, b, c, d, e, u, m].map((id) => readFileSync(p.workFile(id), 'utf8'));
    const f = await p.json(['frontier']);
    const seen: Array<[string, string]> = [];
    for (const ch of ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable']) for (const x of f[ch]) seen.push([x.id, x.code]);
    expect(seen).toHaveLength(7);
    for (const [id, code] of seen) expect((await p.json(['explain', id])).code).toBe(code);
    // A monitor with no next check is not new work (monitor_unscheduled), whatever its age.
    expect(Object.fromEntries(seen)).toEqual({ [a]: 'runnable', [m]: 'monitor_unscheduled', [b]: 'dependency_open', [c]: 'capability_missing', [d]: 'excluded', [e]: 'resume_pending', [u]: 'user_action' });
    expect([a, b, c, d, e, u, m].map((id) => readFileSync(p.workFile(id), 'utf8'))).toEqual(files);
    const human = await p.h(['frontier', '--limit', '1']);
    expect(human.stdout).toMatch(/runnable \(1\)/);
    expect(human.stdout).toMatch(/and 3 more/);
  });

  it('sees hand edits at once (the cache never hides a change)', async () => {
    const p = await project();
    const a = await p.create('A', ['--priority', 'P2']);
    const b = await p.create('B', ['--priority', 'P3']);
    expect((await p.json(['frontier'])).runnable.map((r: any) => r.id)).toEqual([a, b]);
    // A progress note changes the file, not the frontier; the answer stays right.
    expect((await p.h(['progress', b, 'looked at it'])).code).toBe(0);
    expect((await p.json(['frontier'])).runnable.map((r: any) => r.id)).toEqual([a, b]);
    handEdit(p, b, 'priority: "P3"', 'priority: "P0"');
    expect((await p.json(['frontier'])).runnable.map((r: any) => r.id)).toEqual([b, a]);
    handEdit(p, a, 'status: "open"', 'status: "done"');
    const f = await p.json(['frontier']);
    expect(f.runnable.map((r: any) => r.id)).toEqual([b]);
    expect(f.counts.closed).toBe(1);
    handEdit(p, b, 'status: "open"', 'status: [oops');
    const broken = await p.json(['frontier']);
    expect(broken.problems).toHaveLength(1);
    expect((await p.h(['explain', b])).code).toBe(3);
  });

  it('a deferred item whose resume_when is met becomes a resume candidate, not reopened', async () => {
    const p = await project();
    const dep = await p.create('upstream fix');
    const x = await p.create('Retry the export', ['--resume-when', 'at:2026-12-01T00:00:00Z']);
    const y = await p.create('Port to the new API', ['--resume-when', `done:${dep}`]);
    const z = await p.create('React to the PR', ['--resume-when', 'event:github:acme/app#101']);
    for (const id of [x, y, z]) handEdit(p, id, 'status: "open"', 'status: "deferred"');
    const before = [x, y, z].map((id) => readFileSync(p.workFile(id), 'utf8'));
    const early = await p.json(['frontier'], { HOLON_NOW: '2026-11-30T00:00:00Z' });
    expect(early.waiting.map((w: any) => [w.id, w.code]).sort()).toEqual([[x, 'deferred'], [y, 'deferred'], [z, 'deferred']].sort());
    const late = await p.json(['frontier'], { HOLON_NOW: '2026-12-01T00:00:00Z' });
    expect(late.resume_candidates.map((w: any) => w.id)).toEqual([x]);
    handEdit(p, dep, 'status: "open"', 'status: "done"');
    const events = join(p.home, 'agents/main/events');
    mkdirSync(events, { recursive: true });
    writeFileSync(join(events, 'e-1.yaml'), 'id: "e-1"\nresource: "github:acme/app#101"\nstatus: "admitted"\n');
    const all = await p.json(['frontier'], { HOLON_NOW: '2026-12-01T00:00:00Z' });
    expect(all.resume_candidates.map((w: any) => w.id).sort()).toEqual([x, y, z].sort());
    expect([x, y, z].map((id) => readFileSync(p.workFile(id), 'utf8'))).toEqual(before);
  });
});

describe('the frontier result cache is never stale', () => {
  it('sees time, git checkouts, events, capabilities and AGENTS.md without any work file changing', async () => {
    const { execFileSync } = await import('node:child_process');
    const p = await project();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: p.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
    const leased = await p.create('leased by a peer');
    expect((await p.h(['claim', leased, '--ttl', '10m'], { HOLON_ACTOR: 'agent:peer', HOLON_NOW: '2026-11-30T06:00:00Z' })).code).toBe(0);
    const onBranch = await p.create('on feature', ['--branch', 'feature']);
    const ev = await p.create('after the PR event', ['--resume-when', 'event:github:acme/app#7']);
    handEdit(p, ev, 'status: "open"', 'status: "deferred"');
    const gpu = await p.create('needs gpu', ['--requires', 'gpu']);
    const code = async (id: string, now = '2026-11-30T06:05:00Z') => {
      const f = await p.json(['frontier'], { HOLON_NOW: now });
      for (const ch of ['runnable', 'needs_decision', 'needs_action', 'waiting', 'resume_candidates', 'not_runnable']) {
        const hit = f[ch].find((x: any) => x.id === id);
        if (hit) return hit.code;
      }
      return 'absent';
    };
    expect(await code(leased)).toBe('claimed_by_other');
    expect(await code(leased)).toBe('claimed_by_other');
    expect(await code(leased, '2026-11-30T06:10:00Z')).toBe('runnable');
    expect(await code(leased, '2026-11-30T06:09:59Z')).toBe('claimed_by_other');
    expect(await code(onBranch)).toBe('branch_mismatch');
    git('checkout', '-q', '-b', 'feature');
    expect(await code(onBranch)).toBe('runnable');
    expect(await code(ev)).toBe('deferred');
    const events = join(p.home, 'agents/main/events');
    mkdirSync(events, { recursive: true });
    writeFileSync(join(events, 'e-1.yaml'), 'resource: "github:acme/app#7"\nstatus: "queued"\n');
    expect(await code(ev)).toBe('deferred');
    writeFileSync(join(events, 'e-1.yaml'), 'resource: "github:acme/app#7"\nstatus: "admitted"\n');
    expect(await code(ev)).toBe('resume_ready');
    expect(await code(gpu)).toBe('capability_missing');
    const agents = join(p.home, 'agents/main/AGENTS.md');
    writeFileSync(agents, readFileSync(agents, 'utf8').replace('capabilities: ["shell"]', 'capabilities: ["shell", "gpu"]'));
    expect(await code(gpu)).toBe('runnable');
    const cfg = join(p.home, 'holon.yaml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('capabilities:\n', 'capabilities:\n  gpu:\n    probe: "true"\n'));
    expect(await code(gpu)).toBe('capability_missing');
    expect((await p.h(['capabilities', '--refresh'])).code).toBe(0);
    expect(await code(gpu)).toBe('runnable');
  });
});
