import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

type P = Awaited<ReturnType<typeof project>>;

/** Every file under the agent's folder with its content: "nothing written" means this is unchanged. */
function snapshot(p: P): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const f = join(dir, e.name);
      if (e.isDirectory()) walk(f);
      else out[f] = readFileSync(f, 'utf8');
    }
  };
  walk(join(p.home, 'agents'));
  return out;
}

describe('malformed events are refused and change nothing', () => {
  it('empty or spaced resources, unknown modes and sources, big or unreadable payloads', async () => {
    const p = await project();
    const a = await p.create('x');
    await p.json(['wait', a, '--for', 'external:ci:run/1', '--reason', 'r']);
    const big = join(p.dir, 'big.txt');
    writeFileSync(big, 'x'.repeat(64 * 1024 + 1));
    const before = snapshot(p);
    const cases: Array<[string[], RegExp]> = [
      [['notify', ''], /resource is empty/],
      [['notify', 'ci run 1'], /spaces or control characters/],
      [['notify', 'ci:run/1\u0007'], /control characters/],
      [['notify', 'ci:run/1', '--mode', 'shout'], /unknown mode "shout"/],
      [['notify', 'ci:run/1', '--source', 'bot'], /source "bot" is not allowed/],
      [['notify', 'ci:run/1', '--source', 'operator'], /holon tell/],
      [['notify', 'ci:run/1', '--source', 'timer'], /come from holon itself/],
      [['notify', 'ci:run/1', '--payload', 'y'.repeat(64 * 1024 + 1)], /limit is 65536/],
      [['notify', 'ci:run/1', '--payload', `@${big}`], /limit is 65536/],
      [['notify', 'ci:run/1', '--payload', '@/nonexistent/payload.json'], /cannot read payload file .*ENOENT/],
      [['tell', 'z'.repeat(64 * 1024 + 1)], /limit/],
    ];
    for (const [args, msg] of cases) {
      const r = await p.h(args);
      expect(r.code, args.join(' ').slice(0, 60)).toBe(3);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr).toContain('fix:');
    }
    expect(snapshot(p)).toEqual(before);
    expect((await p.h(['notify', 'ci:run/1', '--work', 'w-nosuch99'])).code).toBe(4);
    expect(snapshot(p)).toEqual(before);
    // The limit itself is accepted, from a file too.
    writeFileSync(big, 'x'.repeat(64 * 1024));
    const ok = await p.json(['notify', 'ci:run/1', '--mode', 'message', '--payload', `@${big}`]);
    expect(ok.payload).toHaveLength(64 * 1024);
    expect(ok.disposition.triggered).toHaveLength(1);
  });

  it('inbox lists queued events, and --all the admitted ones with their disposition', async () => {
    const p = await project();
    const first = await p.json(['notify', 'deploy:prod', '--payload', 'hello']);
    expect(first.disposition).toEqual({ triggered: [], nudged: true });
    expect((await p.json(['inbox'])).queued).toEqual([]);
    const all = await p.json(['inbox', '--all']);
    expect(all.admitted).toEqual([expect.objectContaining({ id: first.id, status: 'admitted', source: 'external', resource: 'deploy:prod', payload: 'hello' })]);
    expect((await p.h(['inbox', '--all'])).stdout).toContain('nudged');
  });
});

describe('holon check', () => {
  it('reports a wait on a missing timer, a timer for a missing item, and a malformed timer', async () => {
    const p = await project();
    const a = await p.create('waits on a timer');
    const b = await p.create('owns a timer');
    const w = await p.json(['wait', a, '--for', 'timer', '--in', '1h', '--reason', 'r']);
    const t = await p.json(['timer', 'add', '--in', '1h', '--work', b]);
    expect((await p.h(['check'])).code).toBe(0);
    const timers = join(p.home, 'agents/main/timers');
    rmSync(join(timers, `${w.timer.id}.yaml`));
    rmSync(p.workFile(b));
    writeFileSync(join(timers, 't-broken1.yaml'), 'id: "t-broken1"\nstatus: "sleeping"\n');
    const r = await p.h(['check']);
    expect(r.code).toBe(3);
    expect(r.stdout + r.stderr).toContain(`waits on timer ${w.timer.id}, which does not exist`);
    expect(r.stdout + r.stderr).toContain(`active timer ${t.id} is for WorkItem ${b}, which does not exist`);
    expect(r.stdout + r.stderr).toContain('unknown timer status "sleeping"');
    // The rest of the home still works.
    expect((await p.h(['tick'])).code).toBe(0);
  });
});

describe('completion and the other honest exits', () => {
  it('refuses completion without evidence, with outstanding work and no successor, or with no follow-up answer (exit 3)', async () => {
    const p = await project();
    const a = await p.create('Migrate the export API', ['--pick']);
    const before = readFileSync(p.workFile(a), 'utf8');
    const cases: Array<[string[], RegExp]> = [
      [['complete', '--result', 'done', '--no-followup', 'none'], /no evidence/],
      [['complete', '--result', 'done', '--evidence', 'tests pass', '--outstanding', 'old clients still call v1'], /outstanding work .* but no successor/],
      // Saying nothing about what follows is a refused delivery (3), not a missing option.
      [['complete', '--result', 'done', '--evidence', 'tests pass'], /neither --successor ID nor --no-followup/],
    ];
    for (const [args, msg] of cases) {
      const r = await p.h(args);
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr).toMatch(msg);
    }
    // A missing option is usage (2), as everywhere.
    const missing: Array<[string[], RegExp]> = [
      [['complete', '--evidence', 'tests pass', '--no-followup', 'none'], /--result is missing/],
    ];
    for (const [args, msg] of missing) {
      const r = await p.h(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
    expect(readFileSync(p.workFile(a), 'utf8')).toBe(before);
    expect((await p.h(['complete', '--result', 'x', '--evidence', 'e', '--successor', 'w-nosuch99'])).code).toBe(4);
  });

  it('completes with a successor carrying the outstanding work; waits are cancelled; nothing is deleted', async () => {
    const p = await project();
    const a = await p.create('Migrate the export API');
    const b = await p.create('Retire export API v1 once clients moved');
    await p.json(['wait', a, '--for', 'external:release:server-2.4', '--reason', 'server release']);
    const tw = await p.json(['wait', a, '--for', 'timer', '--in', '2h', '--reason', 'recheck the release']);
    const other = await p.json(['timer', 'add', '--in', '2h', '--work', b]);
    await p.h(['evidence', a, 'v2 endpoints live on server 2.4', '--commit', 'abc1234']);
    const done = await p.json(['complete', a, '--result', 'v2 shipped', '--outstanding', 'two clients still call v1', '--successor', b], { HOLON_ACTOR: 'agent:main' });
    expect(done).toMatchObject({
      status: 'done', successors: [b], no_followup: null,
      delivery: { result: 'v2 shipped', evidence: ['v2 endpoints live on server 2.4'], outstanding: ['two clients still call v1'], completed_by: 'agent:main' },
    });
    expect(done.waits[0]).toMatchObject({ status: 'cancelled', settled_reason: 'work_item_completed' });
    expect(done.waits[1]).toMatchObject({ status: 'cancelled', settled_reason: 'work_item_completed' });
    // The item's own timer goes with it; another item's timer stays.
    expect(done.timers_cancelled).toEqual([tw.timer.id]);
    expect((await p.json(['timer', 'list'])).timers.map((t: any) => t.id)).toEqual([other.id]);
    expect(done.status).toBe('done');
    const text = readFileSync(p.workFile(a), 'utf8');
    expect(text).toMatch(/## Delivery\n\nResult: v2 shipped[\s\S]*Outstanding:\n- two clients still call v1[\s\S]*Successors: /);
    expect(text).toContain('v2 endpoints live on server 2.4');
    expect((await p.h(['complete', a, '--result', 'x', '--evidence', 'e', '--no-followup', 'n'])).code).toBe(3);
    expect((await p.h(['check'])).code).toBe(0);
  });

  it('supersede, defer, block and reopen', async () => {
    const p = await project();
    const a = await p.create('Review PR #101');
    const b = await p.create('Review PR #101 v2 (rebased)');
    await p.json(['wait', a, '--for', 'operator', '--reason', 'r']);
    const s = await p.json(['supersede', a, '--by', b, '--reason', 'the PR was recreated']);
    expect(s).toMatchObject({ status: 'done', superseded_by: b });
    expect(s.waits[0]).toMatchObject({ status: 'cancelled', settled_reason: 'superseded' });
    expect(existsSync(p.workFile(b))).toBe(true);
    expect((await p.json(['show', b])).status).toBe('open');

    const d = await p.json(['defer', b, '--until', '2026-12-10T09:00:00Z', '--when', 'done:' + a, '--when', 'event:github:acme/app#101', '--reason', 'after the freeze'], { HOLON_NOW: '2026-11-30T10:00:00Z' });
    expect(d).toMatchObject({ status: 'deferred', resume_when: ['at:2026-12-10T09:00:00Z', `done:${a}`, 'event:github:acme/app#101'] });
    expect((await p.h(['defer', b, '--when', 'sometime', '--reason', 'x'])).code).toBe(3);
    expect((await p.h(['defer', b, '--reason', 'x'])).code).toBe(2); // no resume condition at all: a missing option

    const bl = await p.json(['block', b, '--reason', 'no staging access', '--recovery', 'ops grants access']);
    expect(bl).toMatchObject({ status: 'blocked', blocker: { reason: 'no staging access', recovery: 'ops grants access' } });
    const r = await p.json(['reopen', b, '--reason', 'access granted']);
    expect(r).toMatchObject({ status: 'open', blocker: null, resume_when: [] });
    expect(readFileSync(p.workFile(b), 'utf8')).toMatch(/## History[\s\S]*deferred until[\s\S]*blocked: no staging access[\s\S]*reopened/);
    expect((await p.h(['reopen', a])).code).toBe(3);
  });
});

describe('a deferred item waiting for an event', () => {
  it('counts only events admitted since the defer: one already in the inbox does not resume it', async () => {
    const p = await project();
    const a = await p.create('Ship after the release build');
    const at = (t: string) => ({ HOLON_NOW: `2026-12-01T${t}Z` });
    const code = async (t: string) => {
      const f = await p.json(['frontier', '--all'], at(t));
      for (const ch of ['runnable', 'waiting', 'resume_candidates', 'not_runnable']) {
        const hit = f[ch].find((x: any) => x.id === a);
        if (hit) return hit.code;
      }
      return 'absent';
    };
    // Yesterday's build event is in the inbox already.
    expect((await p.h(['notify', 'ci:release/build', '--mode', 'message'], at('09:00:00'))).code).toBe(0);
    const d = await p.json(['defer', a, '--when', 'event:ci:release/build', '--reason', 'after the next build'], at('10:00:00'));
    expect(d.status).toBe('deferred');
    expect(readFileSync(p.workFile(a), 'utf8')).toContain('resume_since: "2026-12-01T10:00:00Z"');
    expect(await code('10:01:00')).toBe('deferred');
    // The next build: a resume candidate (reviewed, not reopened by itself).
    expect((await p.h(['notify', 'ci:release/build', '--mode', 'message'], at('10:30:00'))).code).toBe(0);
    expect(await code('10:31:00')).toBe('resume_ready');
    // Deferred again, with the same condition: it waits for a build after this one.
    await p.json(['defer', a, '--when', 'event:ci:release/build', '--reason', 'that build failed'], at('11:00:00'));
    expect(await code('11:01:00')).toBe('deferred');
    // Reopened: the conditions go, and with them the time they counted from.
    await p.json(['reopen', a, '--reason', 'done waiting'], at('11:30:00'));
    expect(readFileSync(p.workFile(a), 'utf8')).not.toContain('resume_since');
    expect(await code('11:31:00')).toBe('runnable');
    // An item made to wait for an event counts the events from its creation on.
    const b = await p.create('Announce the release', ['--resume-when', 'event:ci:release/build'], at('12:00:00'));
    const status = async (t: string) => (await p.json(['frontier', '--all'], at(t))).waiting.find((x: any) => x.id === b)?.code;
    expect(await status('12:01:00')).toBe('resume_pending');
    expect((await p.h(['notify', 'ci:release/build', '--mode', 'message'], at('12:30:00'))).code).toBe(0);
    expect((await p.json(['frontier', '--all'], at('12:31:00'))).runnable.map((x: any) => x.id)).toContain(b);
    expect((await p.h(['check'])).code).toBe(0);
  });
});

describe('events that share a second', () => {
  it('are listed in the order they were admitted, not by their random ids', async () => {
    const p = await project();
    const a = await p.create('x');
    const at = { HOLON_NOW: '2026-12-01T10:00:00Z' }; // a clock that holds still: every event has one created_at
    await p.json(['wait', a, '--for', 'external:ci:run/1', '--reason', 'r'], at);
    const ids: string[] = [];
    for (let n = 1; n <= 6; n++) ids.push((await p.json(['notify', 'external:ci:run/1', '--mode', 'message', '--payload', `step ${n}`], at)).id);
    const admitted = (await p.json(['inbox', '--all'], at)).admitted;
    expect(admitted.map((e: any) => e.created_at)).toEqual(Array(6).fill('2026-12-01T10:00:00Z'));
    expect(admitted.map((e: any) => e.id)).toEqual(ids);
    expect(admitted.map((e: any) => e.payload)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `step ${n}`));
    // The first one queued triggered the wait; the later ones joined its wake.
    expect(admitted[0].disposition.triggered).toHaveLength(1);
    expect(admitted.slice(1).map((e: any) => e.disposition.joined?.length ?? 0)).toEqual([1, 1, 1, 1, 1]);
  });
});
