import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

describe('[ID] TEXT never guesses', () => {
  it('a lone id with no text is a usage error (exit 2) and writes nothing, not evidence on the focus', async () => {
    const p = await project();
    const focus = await p.create('the focus', ['--pick']);
    const other = await p.create('another');
    const before = [readFileSync(p.workFile(focus), 'utf8'), readFileSync(p.workFile(other), 'utf8')];
    for (const cmd of ['evidence', 'progress', 'on-return']) {
      const r = await p.h([cmd, other]);
      expect(r.code, cmd).toBe(2);
      expect(r.stderr).toContain(`names ${other}, but no ${cmd} text was given`);
    }
    expect([readFileSync(p.workFile(focus), 'utf8'), readFileSync(p.workFile(other), 'utf8')]).toEqual(before);
  });

  it('a first word that names no item is text for the focus, even when it looks like an id', async () => {
    const p = await project();
    const focus = await p.create('the focus', ['--pick']);
    expect((await p.h(['progress', 'e-mail', 'sent', 'to', 'the', 'author'])).code).toBe(0);
    expect((await p.h(['progress', 'w-ish', 'is', 'a', 'word'])).code).toBe(0);
    expect((await p.json(['show', focus])).progress.map((e: any) => e.text)).toEqual(['e-mail sent to the author', 'w-ish is a word']);
  });

  it('the first word is the id when it names an item (or a unique prefix); a whole id that names none is not found (4)', async () => {
    const p = await project();
    const focus = await p.create('the focus', ['--pick']);
    const other = await p.create('another');
    expect((await p.h(['progress', other.slice(0, 6), 'on the other'])).code).toBe(0);
    expect((await p.json(['show', other])).progress.map((e: any) => e.text)).toEqual(['on the other']);
    const r = await p.h(['progress', 'w-nosuch99', 'lost?']);
    expect(r.code).toBe(4);
    expect((await p.json(['show', focus])).progress).toEqual([]);
  });

  it('--work names the item explicitly: every word is text, even one that names another item', async () => {
    const p = await project();
    const a = await p.create('a', ['--pick']);
    const b = await p.create('b');
    expect((await p.h(['progress', '--work', b, a, 'was split out of this'])).code).toBe(0);
    expect((await p.json(['show', b])).progress.map((e: any) => e.text)).toEqual([`${a} was split out of this`]);
    expect((await p.json(['show', a])).progress).toEqual([]);
  });

  it('evidence --commit HEAD is resolved to the full sha; a revision git cannot resolve is refused (3)', async () => {
    const p = await project();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: p.dir, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'first');
    const sha = git('rev-parse', 'HEAD');
    const a = await p.create('a', ['--pick']);
    expect((await p.h(['evidence', 'tests pass', '--commit', 'HEAD'])).code).toBe(0);
    expect((await p.json(['show', a])).evidence[0]).toMatchObject({ text: 'tests pass', commit: sha });
    const r = await p.h(['evidence', 'x', '--commit', 'no-such-branch']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('--commit "no-such-branch"');
  });
});
