import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseHolonFrontMatter, parseHolonYaml } from '../../src/core/holon-yaml.js';
import { parseMarkdownRecord } from '../../src/core/record-codec.js';
import { serializeWork } from '../../src/core/workitem.js';
import type { WorkItem } from '../../src/core/types.js';
import { mk, wait } from './frontier-fixtures.js';

const frontMatter = (item: WorkItem) => serializeWork({ item, body: '\n## Objective\n\nx\n', entries: [] }).split('\n---\n')[0].slice(4) + '\n';

const TRICKY = ['plain', 'with "quotes"', 'back\\slash', 'colon: here', '# not a comment', 'ünïcödé ✓', 'tab\there', 'new\nline', '- dash', '', '  spaces  ', "it's", '{braces}', '[brackets]', 'null', '123', 'true'];

describe('the holon YAML subset', () => {
  it('parses everything holon writes exactly as the yaml library does', () => {
    let n = 0;
    for (const s of TRICKY) {
      const items: WorkItem[] = [
        mk({ id: `w-${n++}`, title: s, priority: 'P1', depends_on: ['w-a', s], requires: [s], repo: s || null, branch: 'feature/x' }),
        mk({ id: `w-${n++}`, claim: { holder: s || 'agent:a', claimed_at: '2026-11-30T06:00:00Z', expires_at: null, version: 3, epoch: 2, key: s, ttl: '45m' } }),
        mk({ id: `w-${n++}`, class: 'user_gate', decision_scope: { scope: 'api:action:x', decision: 'approved', decided_at: '2026-11-30T06:00:00Z', decided_by: 'operator', note: s } }),
        mk({ id: `w-${n++}`, waits: [wait('active', { reason: s }), wait('resolved', { settled_by: { event: 'e-1', source: 'operator', mode: 'message' }, settled_reason: s })] }),
        mk({ id: `w-${n++}`, status: 'done', delivery: { result: s, evidence: [s, 'b'], outstanding: [], completed_at: 'x', completed_by: s }, no_followup: s }),
        mk({ id: `w-${n++}`, blocker: { reason: s, recovery: s, since: '2026-11-30T06:00:00Z' }, write_scope: ['src/**', s], revision: 12 }),
      ];
      for (const item of items) {
        const fm = frontMatter(item);
        const fast = parseHolonYaml(fm);
        expect(fast, fm).not.toBeNull();
        expect(fast).toEqual(parse(fm));
        const doc = serializeWork({ item, body: '\n## Objective\n\n---\nnot front matter\n', entries: [] });
        expect(parseHolonFrontMatter(doc)).toEqual(parseMarkdownRecord(doc, 'x.md').data);
      }
    }
  });

  it('declines records it cannot read the same way', () => {
    expect(parseHolonFrontMatter('---\r\nid: "w-1"\r\n---\r\n')).toBeNull();
    expect(parseHolonFrontMatter('id: "w-1"\n')).toBeNull();
    expect(parseHolonFrontMatter('---\nid: "w-1"\n<<<<<<< HEAD\n---\n')).toBeNull();
    expect(parseHolonFrontMatter('---\nid: "w-1"\n---   \nbody')).toEqual({ id: 'w-1' });
  });

  it.each([
    ['# a comment\nid: "w-1"\n'],
    ['id: "w-1"\n\ntitle: "x"\n'],
    ['a:\n  # inside a map\n\n  b: 1\n# between\nc:\n  - "x"\n    # deeper than anything\n  - "y"\n'],
    ['list:\n  - k: "v"\n    # in a list item\n    j: 2\n   \n'],
    ['# only comments\n\n'],
    ['capabilities: ["shell", "a \\"b\\" \\u00e9", "# not a comment", "x, y", ""]\n'],
    ['l:\n  - ["a"]\n'],
    ['status: open\npreset: command\nl:\n  - a_b-c\n  - Yes\n  - no\n  - nan\n  - _x9\n'],
  ])('reads blank lines and whole-line comments in %j as the yaml library does', (text) => {
    const fast = parseHolonYaml(text);
    expect(fast).not.toBeNull();
    expect(fast).toEqual(parse(text) ?? {});
  });

  it('reads plain words as the yaml library does, and leaves the ones it resolves otherwise to it', () => {
    const words = ['a', 'Z', 'open', 'yes', 'No', 'ON', 'off', 'y', 'n', 'nan', 'inf', 'e3', 'E', 'x-1', '_', 'a_b', 'null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'nULL', 'tRUE'];
    for (const w of words) {
      const text = `k: ${w}\nl:\n  - ${w}\n`;
      const fast = parseHolonYaml(text);
      if (fast === null) expect(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']).toContain(w);
      else expect(fast, w).toEqual(parse(text));
    }
  });

  it('reads holon.yaml and AGENTS.md as `holon init` writes them, without the yaml library', () => {
    const template = (name: string) => readFileSync(new URL(`../../templates/${name}`, import.meta.url), 'utf8').replaceAll('{{agent}}', 'main');
    const config = template('holon.yaml');
    expect(parseHolonYaml(config)).toEqual(parse(config));
    const agents = template('AGENTS.md');
    const fm = agents.slice(4, agents.indexOf('\n---\n', 4) + 1);
    expect(parseHolonYaml(fm)).not.toBeNull();
    expect(parseHolonYaml(fm)).toEqual(parse(fm));
  });

  it.each([
    ['tags: [a, b]\n'],
    ['n: 1e3\n'],
    ['n: 007\n'],
    ['a: "x"\na: "y"\n'],
    ['list:\n- "x"\n'],
    ['s: "unterminated\n'],
    ['s: "x" # trailing\n'],
    ['anchor: &a "x"\n'],
    ['s: "\\x41"\n'],
    ['__proto__:\n  a: "x"\n'],
    ['s: "a\tb"\n'],
    ['s: "a\u0001b"\n'],
    ['l: ["a", 1]\n'],
    ['l: ["a",]\n'],
    ['l: ["a"] # trailing\n'],
    ['l: ["a": "b"]\n'],
    ['l: [["a"]]\n'],
    ['s: a b\n'],
    ['s: a:b\n'],
    ['s: ~\n'],
    ['s: .inf\n'],
    ['s: 0x1F\n'],
    ['s: -a\n'],
    ['s: é\n'],
  ])('leaves %j to the yaml library', (text) => {
    expect(parseHolonYaml(text)).toBeNull();
  });
});
