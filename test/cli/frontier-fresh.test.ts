import { execFileSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, tempDir } from '../helpers/cli.js';

/** Issue 16: the frontier's last filters (freshness and evidence, the shared-checkout guard) and roles, for real. */

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' }).trim();

/** A project whose folder is a git repository with one commit. */
async function repoProject() {
  const p = await project();
  git(p.dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(p.dir, 'app.txt'), 'v1\n');
  git(p.dir, 'add', 'app.txt');
  git(p.dir, 'commit', '-q', '-m', 'v1');
  return p;
}

const ids = (f: any) => f.runnable.map((r: any) => [r.id, r.code]);

describe('freshness and evidence', () => {
  it('evidence on an old commit is stale once a new commit lands, and sorts after fresh items of the same priority', async () => {
    const p = await repoProject();
    const v1 = git(p.dir, 'rev-parse', 'HEAD');
    // Distinct creation times: within one priority, age decides (never the random ids).
    const old = await p.create('Fix the export', ['--priority', 'P1'], { HOLON_NOW: '2026-01-01T00:00:01Z' });
    const fresh = await p.create('Document the export', ['--priority', 'P1'], { HOLON_NOW: '2026-01-01T00:00:02Z' });
    const low = await p.create('Tidy the changelog', ['--priority', 'P2'], { HOLON_NOW: '2026-01-01T00:00:03Z' });
    expect((await p.h(['evidence', old, 'tests pass', '--commit', 'HEAD'])).code).toBe(0);
    expect(ids(await p.json(['frontier']))).toEqual([[old, 'runnable'], [fresh, 'runnable'], [low, 'runnable']]);
    // Asked again: the cached answer is the same.
    expect(ids(await p.json(['frontier']))).toEqual([[old, 'runnable'], [fresh, 'runnable'], [low, 'runnable']]);

    appendFileSync(join(p.dir, 'app.txt'), 'v2\n');
    git(p.dir, 'commit', '-q', '-am', 'v2');
    const f = await p.json(['frontier']);
    expect(ids(f)).toEqual([[fresh, 'runnable'], [old, 'stale_commit'], [low, 'runnable']]);
    expect(f.runnable[1].detail).toContain(`observed on ${v1.slice(0, 12)}; HEAD has moved past it`);
    expect(f.counts.by_code).toMatchObject({ runnable: 2, stale_commit: 1 });
    const ex = await p.json(['explain', old]);
    expect(ex).toMatchObject({ channel: 'runnable', runnable: true, code: 'stale_commit' });
    expect(ex.checks.map((c: any) => c.check)).toEqual(['status', 'dependencies', 'waits', 'gates', 'claims', 'capabilities', 'workspace', 'freshness']);
    expect(ex.checks.at(-1)).toMatchObject({ check: 'freshness', pass: true, code: 'stale_commit' });
    expect((await p.h(['explain', old])).stdout).toMatch(/FLAG\s+freshness\s+stale_commit/);
    expect((await p.h(['frontier'])).stdout).toMatch(new RegExp(`${old}\\s+P1\\s+Fix the export\\s+stale_commit`));
    // pick takes the fresh item first (and claims it: an own claim sorts first from now on).
    expect((await p.json(['pick'])).item.id).toBe(fresh);

    // Rechecked on the new commit: fresh again.
    expect((await p.h(['evidence', old, 'tests pass on v2', '--commit', 'HEAD'])).code).toBe(0);
    expect((await p.json(['frontier'])).runnable.find((r: any) => r.id === old).code).toBe('runnable');
    // Progress made on a commit HEAD has since moved past flags it too; a commit git does not have as well.
    expect((await p.h(['progress', fresh, 'half of the docs', '--commit', 'HEAD'])).code).toBe(0);
    appendFileSync(join(p.dir, 'app.txt'), 'v3\n');
    git(p.dir, 'commit', '-q', '-am', 'v3');
    // The v2 evidence is old now too.
    expect(ids(await p.json(['frontier']))).toEqual([[fresh, 'stale_commit'], [old, 'stale_commit'], [low, 'runnable']]);
    expect((await p.h(['evidence', low, 'seen on a commit from elsewhere', '--commit', 'deadbeefdeadbeef'])).code).toBe(0);
    const g = await p.json(['frontier']);
    expect(ids(g)).toEqual([[fresh, 'stale_commit'], [old, 'stale_commit'], [low, 'stale_commit']]);
    expect(g.runnable[0].detail).toMatch(/the last progress was observed on/);
    expect(g.runnable[2].detail).toMatch(/which this repository does not have/);
  });

  it('evidence on a commit this clone lacks is stale until a fetch brings it (the cached answer notices)', async () => {
    const p = await repoProject();
    const peer = join(tempDir(), 'peer');
    git(p.dir, 'clone', '-q', p.dir, peer);
    git(peer, 'checkout', '-q', '-b', 'side');
    writeFileSync(join(peer, 'side.txt'), 'side\n');
    git(peer, 'add', 'side.txt');
    git(peer, 'commit', '-q', '-m', 'side');
    const side = git(peer, 'rev-parse', 'HEAD');
    const a = await p.create('Port the side fix');
    expect((await p.h(['evidence', a, 'works on the side branch', '--commit', side])).code).toBe(0);
    expect((await p.json(['frontier'])).runnable).toMatchObject([{ id: a, code: 'stale_commit' }]);
    expect((await p.json(['frontier'])).runnable).toMatchObject([{ id: a, code: 'stale_commit' }]);
    git(p.dir, 'fetch', '-q', peer, 'side');
    // Known now, and on another line of history (not one HEAD moved past): not stale.
    expect((await p.json(['frontier'])).runnable).toMatchObject([{ id: a, code: 'runnable' }]);
  });

  it('evidence older than the freshness limit is stale, at exactly the time the limit ends (the cached answer too)', async () => {
    const p = await repoProject();
    const y = join(p.home, 'holon.yaml');
    appendFileSync(y, '\nfreshness:\n  max_age: 1d\n');
    const t0 = '2026-11-30T06:00:00Z';
    const a = await p.create('Keep the dashboard correct', [], { HOLON_NOW: t0 });
    const b = await p.create('Same, with its own limit', ['--max-age', '2d'], { HOLON_NOW: t0 });
    const c = await p.create('Same, limit off', ['--max-age', 'off'], { HOLON_NOW: t0 });
    for (const id of [a, b, c]) expect((await p.h(['evidence', id, 'numbers match'], { HOLON_NOW: t0 })).code).toBe(0);
    const at = async (now: string) => Object.fromEntries((await p.json(['frontier'], { HOLON_NOW: now })).runnable.map((r: any) => [r.id, r.code]));
    expect(await at('2026-12-01T05:59:59Z')).toEqual({ [a]: 'runnable', [b]: 'runnable', [c]: 'runnable' });
    expect(await at('2026-12-01T06:00:00Z')).toEqual({ [a]: 'stale_age', [b]: 'runnable', [c]: 'runnable' });
    expect(await at('2026-12-02T06:00:00Z')).toEqual({ [a]: 'stale_age', [b]: 'stale_age', [c]: 'runnable' });
    expect((await p.json(['show', b])).freshness).toEqual({ max_age: '2d' });
    expect((await p.h(['new', 'bad', '--max-age', 'soon'])).code).toBe(3);
    expect((await p.h(['edit', c, '--max-age', 'none'])).code).toBe(0);
    expect(await at('2026-12-02T06:00:00Z')).toMatchObject({ [c]: 'stale_age' });
  });

  it('a review without the commit reviewed is flagged until its evidence names one', async () => {
    const p = await repoProject();
    const r = await p.create('Review the export change', ['--action', 'review', '--role', 'reviewer']);
    const f = await p.json(['frontier']);
    expect(f.runnable).toMatchObject([{ id: r, code: 'evidence_missing' }]);
    expect(f.runnable[0].detail).toContain(`holon evidence ${r} "what you reviewed" --commit SHA`);
    expect((await p.h(['evidence', r, 'read the diff'])).code).toBe(0);
    expect((await p.json(['frontier'])).runnable[0].code).toBe('evidence_missing');
    expect((await p.h(['evidence', r, 'reviewed', '--commit', 'HEAD'])).code).toBe(0);
    expect((await p.json(['frontier'])).runnable[0].code).toBe('runnable');
  });
});

describe('the shared-checkout guard', () => {
  it('refuses the main checkout, passes a real git worktree of the same repository on the right branch', async () => {
    const p = await repoProject();
    const name = basename(p.dir);
    const item = await p.create('Refactor the parser', ['--repo', name, '--branch', 'feature', '--require-worktree']);
    const loose = await p.create('Read the logs');
    // Same repository, same name: still the shared main checkout (and on main, not feature).
    git(p.dir, 'branch', 'feature');
    git(p.dir, 'checkout', '-q', 'feature');
    let f = await p.json(['frontier']);
    expect(f.not_runnable).toMatchObject([{ id: item, code: 'shared_checkout' }]);
    expect(f.not_runnable[0].detail).toMatch(/main checkout of .* \(shared\): git worktree add/);
    expect(f.runnable.map((r: any) => r.id)).toEqual([loose]);
    git(p.dir, 'checkout', '-q', 'main');

    // A linked worktree next to the main checkout, on the item's branch.
    const wt = join(tempDir(), `${name}-feature`);
    git(p.dir, 'worktree', 'add', '-q', wt, 'feature');
    const inWt = (args: string[]) => holon([...args, '--home', p.home, '--json'], { cwd: wt });
    f = JSON.parse((await inWt(['frontier'])).stdout);
    expect(f.runnable.map((r: any) => r.id).sort()).toEqual([item, loose].sort());
    const ex = JSON.parse((await inWt(['explain', item])).stdout);
    expect(ex.checks.find((c: any) => c.check === 'workspace')).toMatchObject({ pass: true, code: 'ok' });
    // A worktree on another branch fails the branch check first.
    const other = join(tempDir(), `${name}-other`);
    git(p.dir, 'worktree', 'add', '-q', other, '-b', 'other');
    const o = JSON.parse((await holon(['frontier', '--home', p.home, '--json'], { cwd: other })).stdout);
    expect(o.not_runnable).toMatchObject([{ id: item, code: 'branch_mismatch' }]);

    // The home may require worktrees for everything; an item may opt out.
    appendFileSync(join(p.home, 'holon.yaml'), '\nworkspace:\n  require_worktree: true\n');
    f = await p.json(['frontier']);
    expect(f.not_runnable.map((e: any) => [e.id, e.code]).sort()).toEqual([[item, 'branch_mismatch'], [loose, 'shared_checkout']].sort());
    expect((await p.h(['edit', loose, '--require-worktree', 'no'])).code).toBe(0);
    expect((await p.json(['frontier'])).runnable.map((r: any) => r.id)).toEqual([loose]);
    expect(JSON.parse((await inWt(['frontier'])).stdout).runnable.map((r: any) => r.id).sort()).toEqual([item, loose].sort());
    // Outside any git checkout the guard fails closed.
    const outside = JSON.parse((await holon(['frontier', '--home', p.home, '--json'], { cwd: tempDir() })).stdout);
    expect(outside.not_runnable.find((e: any) => e.id === item).code).toBe('repo_mismatch');
    expect((await p.h(['edit', item, '--repo', 'none', '--branch', 'none'])).code).toBe(0);
    const out2 = JSON.parse((await holon(['frontier', '--home', p.home, '--json'], { cwd: tempDir() })).stdout);
    expect(out2.not_runnable.find((e: any) => e.id === item)).toMatchObject({ code: 'shared_checkout', detail: expect.stringMatching(/not a git checkout/) });
    // With no repo named, the item belongs to the home's repository: its worktree passes, another repository's does not.
    expect(JSON.parse((await inWt(['frontier'])).stdout).runnable.map((r: any) => r.id)).toContain(item);
    const stranger = join(tempDir(), name);
    execFileSync('mkdir', ['-p', stranger]);
    git(stranger, 'init', '-q', '-b', 'main');
    git(stranger, 'commit', '-q', '--allow-empty', '-m', 'x');
    const strangerWt = join(tempDir(), `${name}-feature`);
    git(stranger, 'worktree', 'add', '-q', strangerWt, '-b', 'feature');
    const s = JSON.parse((await holon(['frontier', '--home', p.home, '--json'], { cwd: strangerWt })).stdout);
    expect(s.not_runnable.find((e: any) => e.id === item)).toMatchObject({ code: 'repo_mismatch', detail: expect.stringMatching(/needs a worktree of the home's repository/) });
  });
});

describe('roles', () => {
  it('claim and transfer resolve a role exclusion as explain does: through superseded_by', async () => {
    const p = await repoProject();
    expect((await p.h(['agent', 'add', 'bob'])).code).toBe(0);
    const impl = await p.create('Implement it', ['--role', 'implementer']);
    const redo = await p.create('Implement it again', ['--role', 'implementer']);
    const review = await p.create('Review it', ['--role', 'reviewer', '--depends-on', impl, '--exclude', 'role:implementer']);
    expect((await p.h(['claim', impl, '--agent', 'bob'])).code).toBe(0);
    expect((await p.h(['claim', redo])).code).toBe(0);
    expect((await p.h(['release', redo])).code).toBe(0);
    expect((await p.h(['release', impl, '--agent', 'bob'])).code).toBe(0);
    expect((await p.h(['supersede', impl, '--by', redo, '--reason', 'redone'])).code).toBe(0);
    // The review follows the replacement now: main served on it, bob no longer counts.
    const claimsCheck = async (agent: string) => (await p.json(['explain', review, '--agent', agent])).checks.find((c: any) => c.check === 'claims');
    expect(await claimsCheck('main')).toMatchObject({ pass: false, code: 'excluded' });
    expect((await claimsCheck('bob')).pass).toBe(true);
    const mine = await p.h(['claim', review]);
    expect(mine.code).toBe(3);
    expect(mine.stderr).toContain(`served as implementer on ${redo}`);
    expect((await p.h(['claim', review, '--agent', 'bob'])).code).toBe(0);
    const handOff = await p.h(['transfer', review, '--to', 'main', '--agent', 'bob']);
    expect(handOff.code).toBe(3);
    expect(handOff.stderr).toContain(`served as implementer on ${redo}`);
  });

  it('new/edit --role, shown in list, show and resume; the implementer may not take the review', async () => {
    const p = await repoProject();
    expect((await p.h(['agent', 'add', 'peer'])).code).toBe(0);
    const impl = await p.create('Implement the export', ['--role', 'implementer']);
    const review = await p.create('Review the export', ['--role', 'reviewer', '--action', 'review', '--depends-on', impl, '--exclude', 'role:implementer'], { HOLON_AGENT: 'peer' });
    expect((await p.json(['show', impl])).role).toBe('implementer');
    expect((await p.h(['list'])).stdout).toMatch(new RegExp(`${impl}\\s+open\\s+-\\s+advancement\\s+implementer\\s+Implement the export`));
    expect((await p.h(['show', review], { HOLON_AGENT: 'peer' })).stdout).toMatch(/action review · role reviewer/);
    const resume = await p.h(['resume', review], { HOLON_AGENT: 'peer' });
    expect(resume.stdout).toMatch(/action review, role reviewer/);
    expect(resume.stdout).toMatch(/you serve as its reviewer/);
    expect((await p.json(['resume', review], { HOLON_AGENT: 'peer' })).work_item).toMatchObject({ role: 'reviewer', action: 'review' });

    // main implements it: claims, records, completes.
    expect((await p.h(['claim', impl])).code).toBe(0);
    expect((await p.h(['complete', impl, '--result', 'done', '--evidence', 'tests pass', '--no-followup', 'the review is its own item'])).code).toBe(0);
    // The review is runnable for peer (after the commit it reviews is named) ...
    expect((await p.h(['evidence', review, 'diff of v1', '--commit', 'HEAD'], { HOLON_AGENT: 'peer' })).code).toBe(0);
    expect((await p.json(['frontier'], { HOLON_AGENT: 'peer' })).runnable).toMatchObject([{ id: review, code: 'runnable' }]);
    // ... but the author may not take it: claim and transfer refuse, explain says why.
    const taken = await p.h(['claim', review, '--agent', 'main']);
    expect(taken.code).toBe(3);
    expect(taken.stderr).toContain(`exclude role:implementer: agent:main served as implementer on ${impl}`);
    const ex = await p.json(['explain', review, '--agent', 'main']);
    expect(ex.checks.find((c: any) => c.check === 'claims')).toMatchObject({ pass: false, code: 'excluded' });
    expect((await p.h(['claim', review], { HOLON_AGENT: 'peer' })).code).toBe(0);
    const handOff = await p.h(['transfer', review, '--to', 'main'], { HOLON_AGENT: 'peer' });
    expect(handOff.code).toBe(3);
    expect(handOff.stderr).toContain('served as implementer');

    expect((await p.h(['edit', impl, '--role', 'none'])).code).toBe(0);
    expect((await p.json(['show', impl])).role).toBeNull();
    expect((await p.h(['new', 'x', '--role', ' '])).code).toBe(3);
  });
});
