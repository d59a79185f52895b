import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { emitSimpleYaml } from '../../dist/core/yaml-emit.js';
import { parseMarkdownRecord, yamlValue } from '../../dist/core/record-codec.js';

const YAML = createRequire(import.meta.url)('yaml');
const lib = (v: unknown) => YAML.stringify(v, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0, indent: 2 }).replace(/\n$/, '');

const SAMPLES: unknown[] = [
  'plain', '', ' lead and trail ', 'quote " and back\\slash', 'a: b # not a comment', '- dash', 'x'.repeat(300), 0, 7, -3, 2 ** 40, true, false, null, [], {},
  { updated_at: '2026-12-01T11:00:00Z' }, { revision: 12 }, { depends_on: ['w-1', 'w-2'] }, { depends_on: [] }, { blocker: null }, { blocker: {} },
  { waits: [{ id: 'wt-1', kind: 'external', resource: 'ci:run/7', status: 'active', created_at: '2026-01-01T00:00:00Z', recheck_at: null, settled_reason: null }] },
  { claim: { holder: 'agent:main', version: 1, epoch: 2 } }, { a: [{ b: ['c', 'd'], e: { f: 1 } }, {}, 'g'] }, { resume_when: ['at:2026-01-01T00:00:00Z', 'done:w-2'] },
  { key_with_under: 'v', 'dash-key': 'v' }, { a: { b: { c: [] } } },
];
// Values it must leave to the library (its output would differ, or needs quoting/escapes).
const DECLINED: unknown[] = ['naïve', 'tab\there', 'new\nline', 1.5, -0, 2 ** 60, { 'needs quote': 1 }, { null: 1 }, { Yes: 1 }, { '1st': 1 }, [[1]], [undefined], new Date(0)];

describe('emitSimpleYaml', () => {
  it('writes what the yaml library writes, byte for byte, for the values it takes', () => {
    for (const v of SAMPLES) expect(emitSimpleYaml(v), JSON.stringify(v)).toBe(lib(v));
  });

  it('declines what it cannot write exactly like the library (the caller then uses the library)', () => {
    for (const v of DECLINED) expect(emitSimpleYaml(v), String(v)).toBeNull();
    for (const v of DECLINED) expect(yamlValue(v)).toBe(lib(v));
  });

  it('round-trips every front-matter entry of the seed records through the library parser', () => {
    const dir = join(__dirname, '../../templates');
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.md'));
    for (const v of SAMPLES) expect(YAML.parse(emitSimpleYaml(v) ?? 'x')).toEqual(JSON.parse(JSON.stringify(v)));
    for (const f of files) {
      const text = readFileSync(join(f.parentPath, f.name), 'utf8');
      if (!text.startsWith('---\n')) continue;
      const { data } = parseMarkdownRecord(text, f.name);
      for (const [k, v] of Object.entries(data)) {
        const s = emitSimpleYaml({ [k]: v });
        if (s !== null) expect(s).toBe(lib({ [k]: v }));
      }
    }
  });
});
