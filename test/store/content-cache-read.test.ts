import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { readEntries } from '../../src/store/content-cache.js';

/**
 * The machine content cache's reader (store/content-cache.ts) both ways: a small file parsed whole,
 * a big one a window of lines at a time (here forced with a limit of 0). Both give the same entries,
 * and neither takes a torn or foreign file.
 */
const head = (build = 'b1') => `{"version":14,"build":${JSON.stringify(build)},"entries":{`;
const line = (i: number) => `${JSON.stringify(`w-${i}.md`)}:${JSON.stringify([`${'ab'.repeat(20)}:${i}`, i % 3 ? { title: `Task ${i} ${'x'.repeat(i % 50)}`, status: 'open' } : 'D', 0, i, i + 1, i + 2])}`;
const fileOf = (n: number, build?: string) => `${head(build)}\n${Array.from({ length: n }, (_, i) => line(i)).join(',\n')}\n}}\n`;

describe('reading the machine content cache', () => {
  for (const [how, whole] of [['whole', undefined], ['a window at a time', 0]] as const) {
    it(`gives every entry, ${how}`, () => {
      // 3,000 entries are some 360 KB: several 64 KB windows, with lines across their ends.
      const path = join(tempDir(), 'content.json');
      writeFileSync(path, fileOf(3000));
      expect(readEntries(path, 14, 'b1', whole)).toEqual(JSON.parse(fileOf(3000)).entries);
    });

    it(`takes nothing torn, of another build or of another layout, ${how}`, () => {
      const text = fileOf(3000);
      const dir = tempDir();
      const bad = join(dir, 'bad.json');
      for (const [variant, build] of [[text.slice(0, -4), 'b1'], [text.slice(0, text.length / 2), 'b1'], [text, 'b2'], [fileOf(10).replace('"version":14', '"version":13'), 'b1'], ['', 'b1']] as const) {
        writeFileSync(bad, variant);
        expect(readEntries(bad, 14, build, whole)).toBeNull();
      }
      expect(readEntries(join(dir, 'none.json'), 14, 'b1', whole)).toBeNull();
    });
  }
});
