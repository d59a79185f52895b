import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { writeCache } from '../../src/store/cache-file.js';

describe('a cache file written whole (writeCache)', () => {
  for (const [what, size] of [['small', 100], ['big (moved aside, not renamed over)', 300_000]] as const) {
    it(`replaces a ${what} one and leaves nothing behind`, () => {
      const dir = tempDir();
      const path = join(dir, 'cache', 'x.bin');
      const tmp = join(dir, 'tmp');
      for (const fill of ['a', 'b']) {
        // One payload as parts, the next as one buffer: both ways the same bytes land.
        const text = fill.repeat(size);
        expect(writeCache(path, fill === 'a' ? [text.slice(0, 10), Buffer.from(text.slice(10))] : Buffer.from(text), tmp)).toBe(true);
        expect(readFileSync(path, 'utf8')).toBe(text);
      }
      expect(readdirSync(join(dir, 'cache'))).toEqual(['x.bin']);
      expect(readdirSync(tmp)).toEqual([]);
    });
  }

  it('makes a folder that is missing, its own or the temp one, whenever it is missing', () => {
    const dir = tempDir();
    const path = join(dir, 'cache', 'x.bin');
    const tmp = join(dir, 'tmp');
    expect(writeCache(path, 'one', tmp)).toBe(true);
    // The cache folder removed (by hand, or a cleanup) while the temp one stays, then the other way round.
    rmSync(join(dir, 'cache'), { recursive: true });
    expect(writeCache(path, ['tw', Buffer.from('o')], tmp)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('two');
    rmSync(tmp, { recursive: true });
    expect(writeCache(path, 'three', tmp)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('three');
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('says it could not write where it cannot, and keeps the old file', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'cache'));
    writeFileSync(join(dir, 'cache', 'x.bin'), 'old');
    // Its temp folder is a file (as good as a read-only disk, even for root).
    writeFileSync(join(dir, 'tmp'), '');
    expect(writeCache(join(dir, 'cache', 'x.bin'), 'n'.repeat(300_000), join(dir, 'tmp'))).toBe(false);
    expect(readFileSync(join(dir, 'cache', 'x.bin'), 'utf8')).toBe('old');
  });
});
