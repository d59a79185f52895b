import { describe, expect, it } from 'vitest';
import { parseWorkSummary } from '../../dist/store/work-index.js';
import { parseMarkdownRecord } from '../../dist/core/record-codec.js';
import { summaryOf, workFromRecord } from '../../dist/core/workitem.js';

const HOLON_WRITTEN = `---
id: "w-abc"
title: "Review PR #101"
agent: "main"
status: "open"
priority: "P1"
created_at: "2026-11-30T05:00:00Z"
revision: 3
depends_on:
  - "w-dep"
waits:
  - id: "wt-1"
    kind: "external"
    resource: "ci:run/7"
    status: "active"
    recheck_at: null
---

## Objective

Review it.

## Progress

- 2026-11-30T05:10:00Z found the missing check
---
a horizontal rule in the body

## On return

recheck
`;

const full = (text: string) => summaryOf(workFromRecord(parseMarkdownRecord(text, 'f.md'), 'f.md', 'w-abc'));

describe('index cache parsing', () => {
  it('the fast path for holon-written records gives exactly what the full codec gives', () => {
    const fast = parseWorkSummary(HOLON_WRITTEN, 'f.md', 'w-abc');
    expect(fast.v).toMatchObject({ id: 'w-abc', priority: 'P1', depends_on: ['w-dep'], progress_count: 1, on_return: 'recheck' });
    expect({ ...full(HOLON_WRITTEN), ...fast.v }).toEqual(full(HOLON_WRITTEN));
  });

  it('hand-written YAML (comments, plain strings) and invalid records go through the full codec', () => {
    const hand = HOLON_WRITTEN.replace('title: "Review PR #101"', 'title: Review PR 101  # by hand');
    expect(parseWorkSummary(hand, 'f.md', 'w-abc').v).toMatchObject({ title: 'Review PR 101' });
    const bad = HOLON_WRITTEN.replace('status: "open"', 'status: "running"');
    expect(parseWorkSummary(bad, 'f.md', 'w-abc').p).toMatchObject({ file: 'f.md', line: 5, message: 'unknown status "running"' });
  });
});
