import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, tempDir } from '../helpers/cli.js';
import { canMount, mountReadOnly, mountSkipReason, mountTmpfs } from '../helpers/mounts.js';

if (!canMount) console.warn(mountSkipReason);

const leftovers = (home: string) => {
  const tmp = join(home, 'local/tmp');
  return existsSync(tmp) ? readdirSync(tmp) : [];
};

/** Fills the file system holding `dir` to the last byte. */
function fill(dir: string): string {
  const file = join(dir, 'filler.bin');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (const size of [chunk.length, 1]) {
      for (;;) {
        try {
          writeSync(fd, chunk, 0, size);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

describe.skipIf(!canMount)('a read-only or full disk', () => {
  it('on a read-only home every write fails at once with the path and the cause (exit 3); reads still work', async () => {
    const p = await project();
    const id = await p.create('read-only item');
    expect((await p.h(['progress', id, 'before'])).code).toBe(0);
    const before = readFileSync(p.workFile(id), 'utf8');
    const unmount = mountReadOnly(p.home);
    try {
      for (const args of [['progress', id, 'after'], ['new', 'another item'], ['timer', 'add', '--in', '1h', '--work', id], ['tell', 'hello'], ['complete', id, '--result', 'x', '--evidence', 'y', '--no-followup', 'z']]) {
        const r = await p.h(args);
        expect(r.code, `holon ${args.join(' ')}: ${r.stderr}`).toBe(3);
        expect(r.stderr).toMatch(/file system is read-only \(EROFS\)/);
        expect(r.stderr).toContain(p.home);
        expect(r.stderr).not.toMatch(/another holon process|unexpected/);
      }
      expect((await p.h(['show', id])).code).toBe(0);
      expect((await p.h(['list', '--json'])).code).toBe(0);
      expect((await p.h(['check'])).code).toBe(0);
    } finally {
      unmount();
    }
    expect(readFileSync(p.workFile(id), 'utf8')).toBe(before);
    expect(leftovers(p.home)).toEqual([]);
  });

  it('on a full disk a write fails with the path and the cause (exit 3), leaves no temp file, and works once there is space', async () => {
    const dir = tempDir();
    const unmount = mountTmpfs(dir, '2m');
    try {
      expect((await holon(['init', '--agent', 'main'], { cwd: dir })).code).toBe(0);
      const h = (args: string[]) => holon(args, { cwd: dir });
      const id = (await h(['new', 'full disk item'])).stdout.trim();
      expect((await h(['progress', id, 'before'])).code).toBe(0);
      const file = join(dir, '.holon/agents/main/work', `${id}.md`);
      const before = readFileSync(file, 'utf8');
      const filler = fill(dir);
      for (const args of [['progress', id, 'x'.repeat(20_000)], ['new', 'y'.repeat(20_000)], ['tell', 'z'.repeat(20_000)]]) {
        const r = await h(args);
        expect(r.code, `holon ${args[0]}: ${r.stderr}`).toBe(3);
        expect(r.stderr).toMatch(/no space left on the device \(ENOSPC\)/);
        expect(r.stderr).toContain(join(dir, '.holon'));
      }
      expect(readFileSync(file, 'utf8')).toBe(before);
      expect(leftovers(join(dir, '.holon'))).toEqual([]);
      expect((await h(['check'])).code).toBe(0);
      unlinkSync(filler);
      expect((await h(['progress', id, 'after'])).code).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain('after');
    } finally {
      unmount();
    }
  });
});

describe('temp files of a killed writer', () => {
  it('are removed by the next writer; a live writer\'s fresh temp file is left alone', async () => {
    const p = await project();
    const id = await p.create('stale temp');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const tmp = join(p.home, 'local/tmp');
    const stale = join(tmp, `${id}.md.${dead}.0badc0de.tmp`);
    const old = join(tmp, `${id}.md.${process.pid}.0ddba11a.tmp`);
    const live = join(tmp, `${id}.md.${process.pid}.feedf00d.tmp`);
    for (const f of [stale, old, live]) writeFileSync(f, 'half a reco');
    utimesSync(old, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    expect((await p.h(['progress', id, 'next write'])).code).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});
