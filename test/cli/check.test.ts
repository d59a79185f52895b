import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

describe('holon check', () => {
  it('is clean on a fresh home and exits 0', async () => {
    const p = await project();
    await p.create('one');
    const r = await p.h(['check', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ schema_version: 1, ok: true, problems: [] });
  });

  it('reports conflict markers, duplicates, missing fields and dangling dependencies, one line each, exit 3', async () => {
    const p = await project('a');
    await p.h(['agent', 'add', 'b']);
    const conflicted = await p.create('conflicted');
    const missing = await p.create('missing title');
    const dangling = await p.create('dangling', []);
    const dup = await p.create('duplicated');
    const f = p.workFile(conflicted, 'a');
    writeFileSync(f, readFileSync(f, 'utf8').replace('status: "open"\n', '<<<<<<< HEAD\nstatus: "open"\n=======\nstatus: "done"\n>>>>>>> theirs\n'));
    const m = p.workFile(missing, 'a');
    writeFileSync(m, readFileSync(m, 'utf8').replace(/^title: .*\n/m, ''));
    const d = p.workFile(dangling, 'a');
    writeFileSync(d, readFileSync(d, 'utf8').replace('revision: 1\n', 'revision: 1\ndepends_on:\n  - "w-gone0000"\n'));
    mkdirSync(join(p.home, 'agents/b/work'), { recursive: true });
    copyFileSync(p.workFile(dup, 'a'), p.workFile(dup, 'b'));
    const r = await p.h(['check']);
    expect(r.code).toBe(3);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(r.stdout).toMatch(new RegExp(`${conflicted}\\.md:5: git conflict marker — fix: resolve the merge`));
    expect(r.stdout).toMatch(new RegExp(`${missing}\\.md:\\d+: missing required field "title"`));
    expect(r.stdout).toMatch(new RegExp(`${dangling}\\.md:\\d+: depends_on names "w-gone0000", which does not exist`));
    expect(r.stdout).toMatch(new RegExp(`duplicate id "${dup}"`));
    const json = JSON.parse((await p.h(['check', '--json'])).stdout);
    expect(json.ok).toBe(false);
    expect(json.problems).toHaveLength(4);
  });

  it('a command that changes nothing does not rewrite the file', async () => {
    const p = await project();
    const id = await p.create('stable');
    expect((await p.h(['on-return', id, 'same note'])).code).toBe(0);
    const f = p.workFile(id);
    const before = { text: readFileSync(f, 'utf8'), ino: statSync(f).ino, mtime: statSync(f).mtimeMs };
    const r = await p.h(['on-return', id, 'same note', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ changed: false, revision: 2 });
    expect(readFileSync(f, 'utf8')).toBe(before.text);
    expect(statSync(f).ino).toBe(before.ino);
    expect(statSync(f).mtimeMs).toBe(before.mtime);
  });

  it('keeps hand-written keys and text through holon writes', async () => {
    const p = await project();
    const id = await p.create('hand edited');
    const f = p.workFile(id);
    const hand = readFileSync(f, 'utf8').replace('revision: 1\n', 'revision: 1\nreviewer_notes:  {tone: kind}   # mine\n') + '\nA paragraph I wrote at the end.\n';
    writeFileSync(f, hand);
    await p.h(['progress', id, 'holon writes here']);
    const after = readFileSync(f, 'utf8');
    expect(after).toContain('reviewer_notes:  {tone: kind}   # mine\n');
    expect(after).toContain('\nA paragraph I wrote at the end.\n');
    expect((await p.json(['show', id])).extra).toEqual({ reviewer_notes: { tone: 'kind' } });
  });
});
