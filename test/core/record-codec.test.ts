import { describe, expect, it } from 'vitest';
import { parseMarkdownRecord, RecordParseError, splitEntries } from '../../src/core/record-codec.js';
import { addEvidence, addProgress, serializeWork, setOnReturn, workFromRecord, viewOf } from '../../src/core/workitem.js';

const FILE = 'w-abc.md';
const HAND_EDITED = `---
# reviewers: keep this comment
id: "w-abc"
title: Review PR 101
status: open
custom_tool:   {a: 1,   b: [x,y]}   # a tool wrote this
revision: 3
priority: P1
notes: |
  free text
  kept as written
---

Some intro a person wrote.

## Objective

Review PR #101.

## Progress

- 2026-11-30T05:00:00Z first finding

## Scratch

A section holon does not know.

## Evidence

## On return
`;

const parse = (text: string) => workFromRecord(parseMarkdownRecord(text, FILE), FILE, 'w-abc');

describe('record codec', () => {
  it('keeps unknown keys and body text byte for byte on rewrite', () => {
    const doc = parse(HAND_EDITED);
    const out = serializeWork(addProgress(doc, { at: '2026-11-30T06:00:00Z', text: 'second finding' }));
    expect(out).toContain('custom_tool:   {a: 1,   b: [x,y]}   # a tool wrote this\n');
    expect(out).toContain('notes: |\n  free text\n  kept as written\n');
    expect(out).toContain('# reviewers: keep this comment\nid: "w-abc"');
    expect(out).toContain('\nSome intro a person wrote.\n');
    expect(out).toContain('## Scratch\n\nA section holon does not know.\n');
    expect(out).toContain('- 2026-11-30T05:00:00Z first finding\n- 2026-11-30T06:00:00Z second finding\n');
  });

  it('serializes deterministically: known keys in fixed order, ids and times quoted', () => {
    const doc = parse(HAND_EDITED);
    const once = serializeWork(doc);
    expect(serializeWork(parse(once))).toBe(once);
    const keys = once.split('\n').filter((l) => /^[a-z_]+:/.test(l)).map((l) => l.split(':')[0]);
    expect(keys.slice(0, 5)).toEqual(['id', 'title', 'status', 'class', 'priority']);
    expect(once).toContain('title: "Review PR 101"');
  });

  it('reports bad YAML with the file line', () => {
    const bad = HAND_EDITED.replace('priority: P1', 'priority: [P1');
    try {
      parse(bad);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(RecordParseError);
      const p = (err as RecordParseError).problem;
      expect(p.file).toBe(FILE);
      expect(p.line).toBeGreaterThanOrEqual(9);
      expect(p.message).toMatch(/bad YAML/);
    }
  });

  it('reports conflict markers at their line', () => {
    const text = HAND_EDITED.replace('status: open', '<<<<<<< HEAD\nstatus: open\n=======\nstatus: done\n>>>>>>> other');
    expect(() => parse(text)).toThrow(/w-abc.md:5: git conflict marker/);
  });

  it('names a missing required field and where to add it', () => {
    expect(() => parse(HAND_EDITED.replace('status: open\n', ''))).toThrow(/missing required field "status"/);
    expect(() => parse(HAND_EDITED.replace('status: open', 'status: running'))).toThrow(/unknown status "running"/);
  });

  it('rejects a file whose id does not match its name', () => {
    expect(() => workFromRecord(parseMarkdownRecord(HAND_EDITED, FILE), FILE, 'w-other')).toThrow(/does not match the file name/);
  });

  it('splits entries with comments attached to the key below', () => {
    const e = splitEntries('# c\na: 1\nb:\n  - x\n\nc: 2\n');
    expect(e.map((x) => x.key)).toEqual(['a', 'b', 'c']);
    expect(e[0].lead).toBe('# c\n');
    expect(e[1].raw).toBe('b:\n  - x');
  });
});

describe('body sections', () => {
  it('evidence with commit and run round-trips', () => {
    const doc = addEvidence(parse(HAND_EDITED), { at: '2026-11-30T06:00:00Z', text: 'tests pass', commit: 'abc1234', run: 'ci/77' });
    expect(viewOf(doc).evidence).toEqual([{ at: '2026-11-30T06:00:00Z', text: 'tests pass', commit: 'abc1234', run: 'ci/77' }]);
  });

  it('on-return replaces only its section', () => {
    const doc = setOnReturn(setOnReturn(parse(HAND_EDITED), 'first note'), 'second note');
    const v = viewOf(doc);
    expect(v.on_return).toBe('second note');
    expect(doc.body).toContain('## Scratch\n\nA section holon does not know.\n');
  });

  it('creates a missing section in canonical order', () => {
    const doc = parse('---\nid: "w-abc"\ntitle: t\nstatus: open\n---\n\n## Objective\n\nDo it.\n\n## On return\n\nlater\n');
    const next = addProgress(doc, { at: '2026-11-30T06:00:00Z', text: 'started' });
    expect(next.body).toBe('\n## Objective\n\nDo it.\n\n## Progress\n\n- 2026-11-30T06:00:00Z started\n\n## On return\n\nlater\n');
  });

  it('multi-line entries stay inside their list item', () => {
    const doc = addProgress(parse(HAND_EDITED), { at: '2026-11-30T06:00:00Z', text: 'line one\nline two' });
    expect(viewOf(doc).progress.at(-1)).toEqual({ at: '2026-11-30T06:00:00Z', text: 'line one\nline two' });
  });
});
