import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, tempDir } from '../helpers/cli.js';

describe('init', () => {
  it('creates the home and changes nothing when run again', async () => {
    const dir = tempDir();
    const first = await holon(['init', '--agent', 'rev', '--json'], { cwd: dir });
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout).created as string[];
    expect(created.some((p) => p.endsWith('holon.yaml'))).toBe(true);
    expect(readFileSync(join(dir, '.holon/.gitignore'), 'utf8')).toContain('local/');
    const agentsMd = join(dir, '.holon/agents/rev/AGENTS.md');
    writeFileSync(agentsMd, readFileSync(agentsMd, 'utf8') + '\nhand-written line\n');
    const again = await holon(['init', '--agent', 'rev', '--json'], { cwd: dir });
    expect(JSON.parse(again.stdout).created).toEqual([]);
    expect(readFileSync(agentsMd, 'utf8')).toContain('hand-written line');
  });

  it('finds the home walking up, and --home / HOLON_HOME override it', async () => {
    const p = await project();
    const sub = join(p.dir, 'a/b');
    mkdirSync(sub, { recursive: true });
    const id = await p.create('from the top');
    expect((await holon(['show', id], { cwd: sub })).code).toBe(0);
    const elsewhere = tempDir();
    expect((await holon(['show', id], { cwd: elsewhere })).code).toBe(4);
    expect((await holon(['show', id], { cwd: elsewhere, env: { HOLON_HOME: p.home } })).code).toBe(0);
    expect((await holon(['--home', p.dir, 'show', id], { cwd: elsewhere })).code).toBe(0);
  });

  it('adds and lists agents', async () => {
    const p = await project('alpha');
    expect((await p.h(['agent', 'add', 'beta'])).code).toBe(0);
    const list = await p.json(['agent', 'list']);
    expect(list.agents.map((a: any) => a.name)).toEqual(['alpha', 'beta']);
    // holon.yaml names the first agent as default; --agent and HOLON_AGENT pick another.
    const b = await p.create('for beta', [], { HOLON_AGENT: 'beta' });
    expect((await p.json(['list'])).items).toEqual([]);
    expect((await p.json(['list', '--agent', 'beta'])).items.map((i: any) => i.id)).toEqual([b]);
    expect((await p.h(['list', '--agent', 'gamma'])).code).toBe(4);
  });
});

describe('WorkItems', () => {
  it('new, list, show, pick, progress, evidence and on-return round-trip through --json', async () => {
    const p = await project();
    const a = await p.create('Review PR #101', ['--priority', 'p1', '--action', 'review', '--accept', 'tenant check present']);
    const b = await p.create('Review PR #102', ['--depends-on', a]);
    expect(a).toMatch(/^w-[0-9a-z]{8}$/);
    expect((await p.h(['pick', a])).code).toBe(0);
    expect((await p.h(['progress', 'found the missing tenant check'])).code).toBe(0);
    expect((await p.h(['evidence', a, 'regression test fails without the fix', '--commit', 'abc1234'])).code).toBe(0);
    expect((await p.h(['on-return', 'recheck the new commit'])).code).toBe(0);
    const shown = await p.json(['show']);
    expect(shown).toMatchObject({ id: a, status: 'open', priority: 'P1', action: 'review', focus: true, revision: 4, on_return: 'recheck the new commit', acceptance: ['tenant check present'] });
    expect(shown.progress).toEqual([{ at: expect.stringMatching(/Z$/), text: 'found the missing tenant check' }]);
    expect(shown.evidence[0]).toMatchObject({ commit: 'abc1234', text: 'regression test fails without the fix' });
    const list = await p.json(['list']);
    expect(list.items.map((i: any) => i.id).sort()).toEqual([a, b].sort());
    expect(list.items.find((i: any) => i.id === b).depends_on).toEqual([a]);
    // Switching focus keeps the other item's record as it was.
    const before = readFileSync(p.workFile(a), 'utf8');
    await p.h(['pick', b]);
    expect(readFileSync(p.workFile(a), 'utf8')).toBe(before);
  });

  it('reading never changes a record', async () => {
    const p = await project();
    const a = await p.create('something');
    const before = readFileSync(p.workFile(a), 'utf8');
    await p.h(['show', a]);
    await p.h(['list', '--json']);
    await p.h(['resume', a]);
    expect(readFileSync(p.workFile(a), 'utf8')).toBe(before);
  });

  it('list filters by status and --all', async () => {
    const p = await project();
    const a = await p.create('one');
    const file = p.workFile(a);
    writeFileSync(file, readFileSync(file, 'utf8').replace('status: "open"', 'status: "deferred"'));
    expect((await p.json(['list'])).items).toEqual([]);
    expect((await p.json(['list', '--all'])).items).toHaveLength(1);
    expect((await p.json(['list', '--status', 'deferred'])).items).toHaveLength(1);
    expect((await p.h(['list', '--status', 'running'])).code).toBe(3);
  });
});

describe('ids on the command line', () => {
  it('accepts a unique prefix and refuses an ambiguous one', async () => {
    const p = await project();
    const a = await p.create('first', ['--pick']);
    expect((await p.json(['show'])).id).toBe(a);
    expect((await p.json(['show', a.slice(0, 6)])).id).toBe(a);
    await p.create('second');
    const r = await p.h(['show', 'w-']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/matches 2 WorkItems/);
  });

  it('without an id and without focus, says how to pick one', async () => {
    const p = await project();
    await p.create('unfocused');
    const r = await p.h(['progress', 'some text']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/no focus/);
    expect(r.stderr).toMatch(/holon pick ID/);
  });
});

describe('bad input', () => {
  it('refuses a bad --commit and an unknown class, writing nothing', async () => {
    const p = await project();
    const a = await p.create('x');
    const before = readFileSync(p.workFile(a), 'utf8');
    const r = await p.h(['evidence', a, 'proof', '--commit', 'not-a-sha!']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/--commit/);
    expect(readFileSync(p.workFile(a), 'utf8')).toBe(before);
    const n = await p.h(['new', 'y', '--class', 'epic']);
    expect(n.code).toBe(3);
    expect(n.stderr).toMatch(/unknown class "epic"/);
    expect((await p.json(['list'])).items).toHaveLength(1);
  });

  it('unknown id exits 4 and suggests close matches', async () => {
    const p = await project();
    const a = await p.create('one');
    const r = await p.h(['show', a.slice(0, -1) + (a.endsWith('x') ? 'y' : 'x')]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(a);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('refuses ids with / or ..', async () => {
    const p = await project();
    for (const bad of ['../x', 'w-1/2', '..']) {
      const r = await p.h(['show', bad]);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/not a valid id/);
    }
  });

  it('unknown flag exits 2 with the usage line', async () => {
    const p = await project();
    const r = await p.h(['list', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--bogus'/);
    expect(r.stderr).toMatch(/usage: holon list/);
  });

  it('a malformed record is reported with file and line; other items still work', async () => {
    const p = await project();
    const good = await p.create('good one');
    const bad = await p.create('bad one');
    const file = p.workFile(bad);
    writeFileSync(file, readFileSync(file, 'utf8').replace('status: "open"', 'status: [open'));
    const list = await p.h(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(good);
    expect(list.stderr).toMatch(new RegExp(`${bad}\\.md:\\d+`));
    expect((await p.h(['show', good])).code).toBe(0);
    const show = await p.h(['show', bad]);
    expect(show.code).toBe(3);
    expect(show.stderr).toMatch(/bad YAML/);
    const check = await p.h(['check']);
    expect(check.code).toBe(3);
    expect(check.stdout).toMatch(new RegExp(`${bad}\\.md:\\d+: bad YAML`));
  });
});
