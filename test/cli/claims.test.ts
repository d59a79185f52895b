import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, spawnHolon, tempDir } from '../helpers/cli.js';

const T0 = '2026-11-30T06:00:00Z';
const at = (min: number) => new Date(Date.parse(T0) + min * 60_000).toISOString().replace('.000Z', 'Z');
const as = (agent: string, min = 0) => ({ HOLON_ACTOR: `agent:${agent}`, HOLON_NOW: at(min) });

function exitOf(child: ReturnType<typeof spawnHolon>): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.resume();
  return new Promise((res) => child.on('close', (code) => res({ code: code ?? 1, stderr })));
}

describe('claims and leases', () => {
  it('8 processes claim one item at once: exactly one wins, the others exit 5 naming the holder', async () => {
    const p = await project();
    const id = await p.create('contended');
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => exitOf(spawnHolon(['claim', id, '--ttl', '10m'], { cwd: p.dir, env: { HOLON_ACTOR: `agent:a${i}` } }))));
    const winners = runs.filter((r) => r.code === 0);
    expect(winners).toHaveLength(1);
    const holder = (await p.json(['show', id])).claim.holder;
    expect(holder).toMatch(/^agent:a[0-7]$/);
    for (const r of runs.filter((x) => x.code !== 0)) {
      expect(r.code).toBe(5);
      expect(r.stderr).toContain(`claimed by ${holder}`);
    }
    expect((await p.json(['show', id])).claim).toMatchObject({ version: 1, epoch: 1 });
  });

  it('concurrent picks without an id: each item goes to one process, the losers try the next', async () => {
    const p = await project();
    const a = await p.create('first', ['--priority', 'P0']);
    const b = await p.create('second', ['--priority', 'P1']);
    const runs = await Promise.all(Array.from({ length: 4 }, (_, i) => {
      const child = spawnHolon(['pick', '--json'], { cwd: p.dir, env: { HOLON_ACTOR: `agent:p${i}` } });
      let stdout = '';
      child.stdout!.on('data', (d) => (stdout += d));
      return exitOf(child).then((r) => ({ ...r, stdout }));
    }));
    const won = runs.filter((r) => r.code === 0).map((r) => JSON.parse(r.stdout).item.id);
    expect(won.sort()).toEqual([a, b].sort());
    for (const r of runs.filter((x) => x.code !== 0)) {
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/nothing is runnable/);
    }
    const holders = [(await p.json(['show', a])).claim.holder, (await p.json(['show', b])).claim.holder];
    expect(new Set(holders).size).toBe(2);
  });

  it('a lease expires at its time; renew, release, transfer, compare-and-swap and idempotency keys', async () => {
    const p = await project();
    await p.h(['agent', 'add', 'b']);
    const id = await p.create('leased work');
    const first = await p.h(['claim', id, '--ttl', '10m', '--key', 'k1', '--expected-version', '0', '--json'], as('main'));
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ outcome: 'claimed', claim: { holder: 'agent:main', expires_at: at(10), version: 1, epoch: 1 } });
    const rev = (await p.json(['show', id])).revision;
    // A retried claim with the same key is a no-op, even though the version moved on.
    const retry = await p.h(['claim', id, '--ttl', '10m', '--key', 'k1', '--expected-version', '0', '--json'], as('main', 1));
    expect(JSON.parse(retry.stdout).outcome).toBe('unchanged');
    expect((await p.json(['show', id])).revision).toBe(rev);
    // Another holder: refused while live, named in the error.
    const b = await p.h(['claim', id], as('b', 9));
    expect(b.code).toBe(5);
    expect(b.stderr).toContain('claimed by agent:main (lease until 2026-11-30T06:10:00Z)');
    // Seen by peer b: held until the lease ends, then free.
    expect((await p.json(['explain', id], as('b', 9))).code).toBe('claimed_by_other');
    expect((await p.json(['explain', id], as('b', 10))).code).toBe('runnable');
    // Stale compare-and-swap.
    expect((await p.h(['claim', id, '--expected-version', '0'], as('b', 11))).code).toBe(5);
    // Renew extends by the granted ttl; only the holder may.
    expect((await p.h(['renew', id], as('b', 5))).code).toBe(5);
    expect((await p.json(['renew', id], as('main', 5))).claim).toMatchObject({ expires_at: at(15), version: 2 });
    expect((await p.h(['claim', id], as('b', 12))).code).toBe(5);
    // Transfer to b: a new epoch; then b releases; main claims again.
    expect((await p.json(['transfer', id, '--to', 'b'], as('main', 6))).claim).toMatchObject({ holder: 'agent:b', epoch: 2, version: 3 });
    expect((await p.h(['release', id], as('main', 7))).code).toBe(5);
    expect((await p.h(['release', id], as('b', 7))).code).toBe(0);
    const renewReleased = await p.h(['renew', id], as('b', 7));
    expect(renewReleased.code).toBe(5);
    expect(renewReleased.stderr).toContain('the claim by agent:b ended at 2026-11-30T06:07:00Z (released or expired)');
    expect((await p.json(['claim', id, '--expected-version', '4'], as('main', 8))).claim).toMatchObject({ holder: 'agent:main', version: 5, epoch: 3, expires_at: null });
    // An agent run may not force; a person may.
    expect((await p.h(['release', id, '--force'], as('b', 9))).code).toBe(3);
    expect((await p.h(['release', id, '--force'], { HOLON_NOW: at(9), HOLON_AGENT: 'b' })).code).toBe(0);
    expect((await p.h(['transfer', id, '--to', 'nobody'], as('main', 9))).code).toBe(3);
    expect((await p.h(['transfer', id], as('main', 9))).code).toBe(2);
    // A transfer cannot hand an item to an agent its exclude names (a claim by that agent is refused too).
    const own = await p.create('review b\'s change', ['--exclude', 'b']);
    expect((await p.h(['claim', own], as('main', 9))).code).toBe(0);
    const handOff = await p.h(['transfer', own, '--to', 'b'], as('main', 9));
    expect(handOff.code).toBe(3);
    expect(handOff.stderr).toContain('agent:b is excluded');
  });

  it('overlapping write scopes conflict, disjoint ones proceed in parallel', async () => {
    const p = await project();
    const api = await p.create('API change', ['--write-scope', 'src/api/**']);
    const all = await p.create('Refactor src', ['--write-scope', 'src/**']);
    const ui = await p.create('UI tweak', ['--write-scope', 'src/ui/**,docs/*.md']);
    expect((await p.h(['claim', api], as('a'))).code).toBe(0);
    const conflict = await p.h(['claim', all], as('b'));
    expect(conflict.code).toBe(5);
    expect(conflict.stderr).toMatch(/src\/\*\* overlaps src\/api\/\*\* of w-/);
    expect((await p.h(['claim', ui], as('b'))).code).toBe(0);
    const now = { HOLON_NOW: at(1) };
    const f = await p.json(['frontier'], now);
    expect(f.not_runnable.find((x: any) => x.id === all)).toMatchObject({ code: 'write_scope_conflict' });
    // Once the leases end, the scope is free again.
    expect((await p.h(['release', api], as('a'))).code).toBe(0);
    expect((await p.json(['explain', all], now)).checks.find((c: any) => c.check === 'workspace')).toMatchObject({ pass: false, detail: expect.stringContaining('src/ui/**') });
    expect((await p.h(['release', ui], as('b'))).code).toBe(0);
    expect((await p.json(['explain', all], now)).code).toBe('runnable');
  });
});

describe('workspace guard and capabilities', () => {
  it('checks repo and branch against the real checkout', async () => {
    const dir = tempDir();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
    git('remote', 'add', 'origin', 'git@github.com:acme/app.git');
    expect((await holon(['init'], { cwd: dir })).code).toBe(0);
    const h = (args: string[]) => holon(args, { cwd: dir });
    const mk = async (...flags: string[]) => (await h(['new', 'x', ...flags])).stdout.trim();
    const onFeature = await mk('--repo', 'acme/app', '--branch', 'feature');
    const byName = await mk('--repo', 'app');
    const other = await mk('--repo', 'acme/other');
    const code = async (id: string) => JSON.parse((await h(['explain', id, '--json'])).stdout).code;
    expect(await code(onFeature)).toBe('branch_mismatch');
    expect(await code(byName)).toBe('runnable');
    expect(await code(other)).toBe('repo_mismatch');
    git('checkout', '-q', '-b', 'feature');
    expect(await code(onFeature)).toBe('runnable');
    const f = JSON.parse((await h(['frontier', '--json'])).stdout);
    expect(f.runnable.map((r: any) => r.id).sort()).toEqual([onFeature, byName].sort());
    // Outside any git checkout the guard fails closed.
    const bare = tempDir();
    const nogit = await holon(['explain', byName, '--json'], { cwd: bare, env: { HOLON_HOME: join(dir, '.holon') } });
    expect(JSON.parse(nogit.stdout)).toMatchObject({ code: 'repo_mismatch', detail: 'not in a git checkout' });
  });

  it('runs probes only on --refresh, caches them, and the frontier reads the cache', async () => {
    const p = await project();
    const cfg = join(p.home, 'holon.yaml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/capabilities:\n  shell:\n    probe: "true"\n/, 'capabilities:\n  shell:\n    probe: "true"\n  gpu:\n    probe: "exit 1"\n  slow:\n    probe: "sleep 5"\n  network: {}\n'));
    const shell = await p.create('needs shell', ['--requires', 'shell']);
    const gpu = await p.create('needs gpu', ['--requires', 'gpu']);
    const net = await p.create('needs network', ['--requires', 'network']);
    const code = async (id: string) => (await p.json(['explain', id])).code;
    expect(await code(shell)).toBe('capability_missing');
    expect((await p.json(['explain', shell])).detail).toMatch(/probe never ran/);
    expect(await code(net)).toBe('runnable');
    // How long --refresh takes with a hanging probe is measured in bench/timings.mjs; here: it says so.
    const caps = await p.json(['capabilities', '--refresh', '--timeout', '1s']);
    const byName = Object.fromEntries(caps.capabilities.map((c: any) => [c.name, c.status]));
    expect(byName).toEqual({ shell: 'verified', gpu: 'failed', slow: 'failed', network: 'declared' });
    expect(caps.capabilities.find((c: any) => c.name === 'slow').output).toMatch(/timed out/);
    expect(await code(shell)).toBe('runnable');
    expect(await code(gpu)).toBe('capability_missing');
    // A changed probe command invalidates its cached result.
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('probe: "true"', 'probe: "test -d /"'));
    expect(await code(shell)).toBe('capability_missing');
    expect((await p.json(['capabilities'])).capabilities.find((c: any) => c.name === 'shell').status).toBe('unverified');
    expect((await p.h(['capabilities', '--timeout', '1s'])).code).toBe(2);
    // A timeout longer than Node's longest timer (~24.8 days) does not kill the probe at once.
    const long = await p.json(['capabilities', '--refresh', '--timeout', '30d']);
    expect(long.capabilities.find((c: any) => c.name === 'shell').status).toBe('verified');
  });
});

describe('graph fields on write and in check', () => {
  it('new and edit validate the fields; edit changes them cleanly', async () => {
    const p = await project();
    const bad = await p.h(['new', 'x', '--needs-decision', 'api-change']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/needs_decision: decision scope "api-change" needs three parts/);
    expect(bad.stderr).toMatch(/fix: write it as kind:granularity:key/);
    expect((await p.h(['new', 'g', '--class', 'user_gate'])).code).toBe(3);
    expect((await p.h(['new', 'x', '--resume-when', 'later'])).code).toBe(3);
    const a = await p.create('A');
    const b = await p.create('B', ['--depends-on', a]);
    const edited = await p.json(['edit', b, '--priority', 'P0', '--add-requires', 'gpu,shell', '--remove-depends-on', a, '--title', 'B, renamed', '--add-write-scope', 'src/**', '--repo', 'acme/app']);
    expect(edited).toMatchObject({ id: b, priority: 'P0', requires: ['gpu', 'shell'], depends_on: [], title: 'B, renamed', write_scope: ['src/**'], repo: 'acme/app', changed: true });
    expect((await p.json(['edit', b, '--priority', 'P0'])).changed).toBe(false);
    expect((await p.json(['edit', b, '--repo', 'none', '--remove-requires', 'gpu'])).requires).toEqual(['shell']);
    // A dependency that closes a cycle is refused, as is an unknown id.
    await p.h(['edit', b, '--add-depends-on', a]);
    const cyc = await p.h(['edit', a, '--add-depends-on', b]);
    expect(cyc.code).toBe(3);
    expect(cyc.stderr).toMatch(/cycle/);
    expect((await p.h(['edit', a, '--add-depends-on', 'w-nothere'])).code).toBe(4);
    expect((await p.h(['edit', a, '--remove-exclude', 'bob'])).code).toBe(3);
    expect((await p.h(['edit', a, '--add-needs-decision', 'api:team:x'])).code).toBe(3);
  });

  it('holon check reports bad graph fields with file and line', async () => {
    const p = await project();
    const a = await p.create('A');
    const f = p.workFile(a);
    writeFileSync(f, readFileSync(f, 'utf8').replace('class: "advancement_task"\n', 'class: "user_action"\ndecision_scope: "api:action:x"\nneeds_decision:\n  - "api:sometimes:x"\n'));
    const r = await p.json(['check']).catch(() => null);
    expect(r).toBeNull();
    const out = await p.h(['check', '--json']);
    expect(out.code).toBe(3);
    const problems = JSON.parse(out.stdout).problems;
    expect(problems.map((x: any) => x.message)).toEqual([
      'decision scope "api:sometimes:x" has an unknown granularity "sometimes"',
      'decision_scope on a user_action covers nothing: only a user_gate can satisfy a decision (a user_action never does)',
    ]);
    expect(problems[0].line).toBeGreaterThan(1);
  });
});

describe('a claim the holder has already', () => {
  it('is answered from the record without the lock, and still refuses what the locked path refuses', async () => {
    const p = await project();
    const id = await p.create('mine');
    expect((await p.h(['claim', id])).code).toBe(0);
    expect((await p.h(['pick', id])).code).toBe(0);
    const file = p.workFile(id);
    const before = readFileSync(file, 'utf8');
    const ino = statSync(file).ino;
    // The item's lock and the focus lock held by another process (fresh, so never taken over): a
    // repeat that needed either would wait about a minute and exit 5.
    const locks = join(p.home, 'local/locks');
    const future = new Date(Date.now() + 3600_000);
    for (const name of [`main.${id}.lock`, 'main.focus.lock']) {
      mkdirSync(join(locks, name), { recursive: true });
      utimesSync(join(locks, name), future, future);
    }
    const again = await p.h(['claim', id, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).outcome).toBe('unchanged');
    const picked = await p.h(['pick', '--json']);
    expect(picked.code, picked.stderr).toBe(0);
    expect(JSON.parse(picked.stdout).focus).toBe(id);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(statSync(file).ino).toBe(ino);
    // What the locked path refuses (its locks free again), this one refuses too: a stale version (5),
    // an exclusion (3).
    rmSync(locks, { recursive: true, force: true });
    const stale = await p.h(['claim', id, '--expected-version', '9']);
    expect(stale.code).toBe(5);
    expect(stale.stderr).toContain('not the expected 9');
    writeFileSync(file, before.replace('revision: ', 'exclude: ["main"]\nrevision: '));
    const excluded = await p.h(['claim', id]);
    expect(excluded.code).toBe(3);
    expect(excluded.stderr).toContain('excluded');
  });
});
