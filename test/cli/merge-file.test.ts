import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, tempDir } from '../helpers/cli.js';

const item = (priority: string, progress: string[]) =>
  `---\nid: "w-aaaaaaaa"\ntitle: "T"\nagent: "main"\nstatus: "open"\npriority: "${priority}"\nrevision: 2\n---\n\n## Objective\n\nT\n\n## Progress\n\n${progress.map((p) => `- ${p}\n`).join('')}\n## On return\n`;

describe('holon merge-file (the driver git runs) and holon setup git', () => {
  it('writes the merge into OURS: exit 0 when clean, 5 with a conflict block and a line naming it', async () => {
    const d = tempDir();
    const f = (name: string, text: string) => (writeFileSync(join(d, name), text), join(d, name));
    const path = '.holon/agents/main/work/w-aaaaaaaa.md';
    const base = f('o', item('P2', []));
    const ours = f('a', item('P2', ['2026-12-01T09:00:00Z ours']));
    const theirs = f('b', item('P1', ['2026-12-01T08:00:00Z theirs']));
    const clean = await holon(['merge-file', base, ours, theirs, path]);
    expect(clean.code).toBe(0);
    expect(readFileSync(ours, 'utf8')).toContain('priority: "P1"\n');
    expect(readFileSync(ours, 'utf8')).toContain('- 2026-12-01T08:00:00Z theirs\n- 2026-12-01T09:00:00Z ours\n');
    expect(readFileSync(ours, 'utf8')).toContain('revision: 3\n');
    f('a', item('P0', []));
    const clash = await holon(['merge-file', base, ours, theirs, path, '--json']);
    expect(clash.code).toBe(5);
    expect(JSON.parse(clash.stdout)).toMatchObject({ kind: 'work', clean: false, conflicts: [{ line: 6, what: expect.stringMatching(/priority changed on both sides/) }] });
    expect(clash.stderr).toContain(`${path}:6: conflict: holon merge: priority changed on both sides`);
    expect((await holon(['merge-file', base])).code).toBe(2);
  });

  it('setup git outside a repository is refused; inside one it sets the driver once', async () => {
    const p = await project();
    const refused = await p.h(['setup', 'git']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/not in a git repository/);
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['init', '-q', p.dir]);
    const dry = await p.json(['setup', 'git', '--dry-run']);
    expect(dry).toMatchObject({ dry_run: true, attributes: { changed: false }, config: { changed: true } });
    expect((await p.json(['setup', 'git'])).config.changed).toBe(true);
    expect((await p.json(['setup', 'git'])).config.changed).toBe(false);
    expect(execFileSync('git', ['config', 'merge.holon.driver'], { cwd: p.dir, encoding: 'utf8' })).toMatch(/holon\.js' merge-file %O %A %B %P/);
  });
});
