import { describe, expect, it } from 'vitest';
import { parseMarkdownRecord, parseYamlRecord, RecordParseError } from '../../src/core/record-codec.js';
import { mergeRecord } from '../../src/core/record-merge.js';
import { mergeText } from '../../src/core/text-merge.js';
import { readEntries, readSection } from '../../src/core/body.js';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const PATH = '.holon/agents/main/work/w-aaaaaaaa.md';

const FM = ['id: "w-aaaaaaaa"', 'title: "Review PR #101"', 'agent: "main"', 'status: "open"', 'class: "advancement_task"', 'priority: "P2"', 'created_at: "2026-12-01T08:00:00Z"', 'updated_at: "2026-12-01T08:00:00Z"', 'revision: 3'];

/** A WorkItem text: the base front matter with lines replaced or added, and a body. */
function rec(opts: { set?: Record<string, string>; add?: string[]; progress?: string[]; evidence?: string[]; onReturn?: string; extra?: string } = {}): string {
  const fm = FM.map((l) => {
    const key = l.split(':')[0];
    return opts.set?.[key] !== undefined ? `${key}: ${opts.set[key]}` : l;
  });
  const body = [
    '',
    '## Objective',
    '',
    'Review PR #101.',
    '',
    '## Progress',
    '',
    ...(opts.progress ?? []).map((p) => `- ${p}`),
    ...(opts.progress?.length ? [''] : []),
    '## Evidence',
    '',
    ...(opts.evidence ?? []).map((p) => `- ${p}`),
    ...(opts.evidence?.length ? [''] : []),
    '## On return',
    ...(opts.onReturn ? ['', opts.onReturn] : []),
    ...(opts.extra ? ['', opts.extra] : []),
  ];
  return `---\n${[...fm, ...(opts.add ?? [])].join('\n')}\n---\n${body.join('\n')}\n`;
}

const merge = (base: string, ours: string, theirs: string, path = PATH) => mergeRecord({ path, base, ours, theirs, nowMs: NOW });
const data = (text: string) => parseMarkdownRecord(text, 'x').data;
const body = (text: string) => parseMarkdownRecord(text, 'x').body;

const P1 = '2026-12-01T08:10:00Z first note';
const P2 = '2026-12-01T08:20:00Z ours note';
const P3 = '2026-12-01T08:15:00Z theirs note';

const wait = (id: string, status: string, extra: string[] = []) => [
  `  - id: "${id}"`,
  '    kind: "external"',
  `    resource: "external:ci:run/${id}"`,
  '    reason: "CI"',
  `    status: "${status}"`,
  '    created_at: "2026-12-01T08:00:00Z"',
  ...extra.map((e) => `    ${e}`),
];

const claim = (holder: string, epoch: number, version: number, expires: string | null) => [
  'claim:',
  `  holder: "${holder}"`,
  '  claimed_at: "2026-12-01T09:00:00Z"',
  `  expires_at: ${expires ? `"${expires}"` : 'null'}`,
  `  version: ${version}`,
  `  epoch: ${epoch}`,
];

describe('record merge: WorkItems', () => {
  const cases: Array<{ name: string; base: string; ours: string; theirs: string; check: (text: string) => void }> = [
    {
      name: 'progress on both sides: united without duplicates, in time order',
      base: rec({ progress: [P1] }),
      ours: rec({ progress: [P1, P2], set: { revision: '4' } }),
      theirs: rec({ progress: [P1, P3], set: { revision: '5' } }),
      check: (t) => {
        expect(readEntries(body(t), 'Progress').map((e) => e.text)).toEqual(['first note', 'theirs note', 'ours note']);
        expect(data(t).revision).toBe(6);
      },
    },
    {
      name: 'the same entry added on both sides is kept once',
      base: rec(),
      ours: rec({ progress: [P2] }),
      theirs: rec({ progress: [P2, P3] }),
      check: (t) => expect(readEntries(body(t), 'Progress').map((e) => e.text)).toEqual(['theirs note', 'ours note']),
    },
    {
      name: 'progress on one side, evidence on the other',
      base: rec(),
      ours: rec({ progress: [P2] }),
      theirs: rec({ evidence: ['2026-12-01T08:30:00Z [commit 3f9c2ab] tests pass'] }),
      check: (t) => {
        expect(readEntries(body(t), 'Progress')).toHaveLength(1);
        expect(readEntries(body(t), 'Evidence')).toEqual([{ at: '2026-12-01T08:30:00Z', commit: '3f9c2ab', text: 'tests pass' }]);
      },
    },
    {
      name: 'a scalar changed on one side is taken',
      base: rec(),
      ours: rec({ set: { priority: '"P0"' } }),
      theirs: rec({ progress: [P3] }),
      check: (t) => expect(data(t).priority).toBe('P0'),
    },
    {
      name: 'updated_at is the later one and revision ends above both',
      base: rec(),
      ours: rec({ set: { revision: '9', updated_at: '"2026-12-01T09:00:00Z"' }, progress: [P2] }),
      theirs: rec({ set: { revision: '4', updated_at: '"2026-12-01T09:30:00Z"' }, progress: [P3] }),
      check: (t) => {
        expect(data(t).revision).toBe(10);
        expect(data(t).updated_at).toBe('2026-12-01T09:30:00Z');
      },
    },
    {
      name: 'waits merge by id: a new wait on each side, and a settled wait stays settled',
      base: rec({ add: ['waits:', ...wait('a1', 'active')] }),
      ours: rec({ add: ['waits:', ...wait('a1', 'triggered', ['settled_at: "2026-12-01T09:00:00Z"', 'settled_reason: "event"']), ...wait('o1', 'active')] }),
      theirs: rec({ add: ['waits:', ...wait('a1', 'active', ['recheck_at: "2026-12-02T00:00:00Z"']), ...wait('t1', 'active')] }),
      check: (t) => {
        const w = data(t).waits as Array<Record<string, unknown>>;
        expect(w.map((x) => `${x.id}:${x.status}`)).toEqual(['a1:triggered', 'o1:active', 't1:active']);
      },
    },
    {
      name: 'wait on one side, complete on the other: done, the new wait cancelled as completion would',
      base: rec(),
      ours: rec({ add: ['waits:', ...wait('o1', 'active')] }),
      theirs: rec({ set: { status: '"done"' }, add: ['no_followup: "delivered"', 'delivery:', '  result: "approved"', '  evidence: ["CI green"]', '  outstanding: []', '  completed_at: "2026-12-01T09:40:00Z"', '  completed_by: "operator"'] }),
      check: (t) => {
        const d = data(t);
        expect(d.status).toBe('done');
        expect((d.delivery as Record<string, unknown>).result).toBe('approved');
        expect(d.waits).toEqual([expect.objectContaining({ id: 'o1', status: 'cancelled', settled_reason: 'work_item_completed', settled_at: '2026-12-01T09:40:00Z' })]);
      },
    },
    {
      name: 'claims: the higher epoch wins when not both live',
      base: rec({ add: claim('agent:a', 1, 1, '2026-12-01T09:30:00Z') }),
      ours: rec({ add: claim('agent:a', 1, 2, '2026-12-01T09:45:00Z') }),
      theirs: rec({ add: claim('agent:b', 2, 2, '2026-12-01T11:00:00Z') }),
      check: (t) => expect(data(t).claim).toMatchObject({ holder: 'agent:b', epoch: 2 }),
    },
    {
      name: 'claims by one holder: the higher version wins',
      base: rec({ add: claim('agent:a', 1, 1, '2026-12-01T11:00:00Z') }),
      ours: rec({ add: claim('agent:a', 1, 3, '2026-12-01T12:00:00Z') }),
      theirs: rec({ add: claim('agent:a', 1, 2, '2026-12-01T11:30:00Z') }),
      check: (t) => expect(data(t).claim).toMatchObject({ version: 3, expires_at: '2026-12-01T12:00:00Z' }),
    },
    {
      name: 'list fields merge as sets',
      base: rec({ add: ['requires: ["shell", "gpu"]'] }),
      ours: rec({ add: ['requires: ["shell", "gpu", "network"]'] }),
      theirs: rec({ add: ['requires: ["shell"]'] }),
      check: (t) => expect(data(t).requires).toEqual(['shell', 'network']),
    },
    {
      name: 'unknown keys merge like text, one side each',
      base: rec({ add: ['reviewer_notes: "x"  # hand-written'] }),
      ours: rec({ add: ['reviewer_notes: "y"  # hand-written'] }),
      theirs: rec({ add: ['reviewer_notes: "x"  # hand-written', 'team: "core"'], progress: [P3] }),
      check: (t) => {
        expect(t).toContain('reviewer_notes: "y"  # hand-written');
        expect(t).toContain('team: "core"');
      },
    },
    {
      name: 'hand-written sections merge like text',
      base: rec({ extra: '## Notes\n\nline one\nline two\nline three' }),
      ours: rec({ extra: '## Notes\n\nline one (ours)\nline two\nline three' }),
      theirs: rec({ extra: '## Notes\n\nline one\nline two\nline three (theirs)' }),
      check: (t) => expect(readSection(body(t), 'Notes')).toBe('line one (ours)\nline two\nline three (theirs)'),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = merge(c.base, c.ours, c.theirs);
      expect(r.conflicts).toEqual([]);
      expect(r.kind).toBe('work');
      c.check(r.text);
      // Merging is symmetric in what it keeps.
      const flipped = merge(c.base, c.theirs, c.ours);
      expect(flipped.conflicts).toEqual([]);
      expect(data(flipped.text)).toEqual(data(r.text));
    });
  }

  const conflicts: Array<{ name: string; base: string; ours: string; theirs: string; what: RegExp }> = [
    { name: 'priority changed differently on both sides', base: rec(), ours: rec({ set: { priority: '"P0"' } }), theirs: rec({ set: { priority: '"P3"' } }), what: /priority changed on both sides; was "P2"/ },
    {
      name: 'two live claims by different holders',
      base: rec(),
      ours: rec({ add: claim('agent:a', 1, 1, '2026-12-01T11:00:00Z') }),
      theirs: rec({ add: claim('agent:b', 1, 1, null) }),
      what: /two live claims, by agent:a and by agent:b/,
    },
    { name: 'On return rewritten on both sides', base: rec({ onReturn: 'check CI' }), ours: rec({ onReturn: 'check the new commit' }), theirs: rec({ onReturn: 'ask the reviewer' }), what: /section "On return" changed on both sides/ },
  ];
  for (const c of conflicts) {
    it(`conflict: ${c.name}, reported with its line by the record reader`, () => {
      const r = merge(c.base, c.ours, c.theirs);
      expect(r.conflicts).toHaveLength(1);
      expect(r.conflicts[0].what).toMatch(c.what);
      const lines = r.text.split('\n');
      expect(lines[r.conflicts[0].line - 1]).toMatch(/^<{7} ours \(holon merge: /);
      let err: unknown;
      try {
        parseMarkdownRecord(r.text, 'w.md');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RecordParseError);
      expect((err as RecordParseError).problem).toMatchObject({ line: r.conflicts[0].line });
      expect((err as RecordParseError).problem.message).toMatch(c.what);
      expect((err as RecordParseError).problem.fix).toMatch(/keep one side/);
    });
  }

  it('an item added on both sides (empty base) merges as one', () => {
    const r = merge('', rec({ progress: [P2] }), rec({ progress: [P3] }));
    expect(r.conflicts).toEqual([]);
    expect(readEntries(body(r.text), 'Progress')).toHaveLength(2);
  });

  it('a side that does not parse merges as text, and a clash is a conflict block', () => {
    const bad = rec().replace('priority: "P2"', 'priority: [unclosed');
    const r = merge(rec(), bad, rec({ set: { priority: '"P1"' } }));
    expect(r.kind).toBe('text');
    expect(r.conflicts.length).toBeGreaterThan(0);
  });
});

describe('record merge: timers and focus', () => {
  const timer = (over: Record<string, string> = {}) =>
    Object.entries({ id: '"t-aaaaaaaa"', agent: '"main"', work_item: 'null', summary: '"check"', status: '"active"', created_at: '"2026-12-01T08:00:00Z"', first_due_at: '"2026-12-01T09:00:00Z"', every: '"1h"', until: 'null', next_due_at: '"2026-12-01T09:00:00Z"', last_fired_at: 'null', last_slot_at: 'null', fire_count: '0', missed_count: '0', cancelled_at: 'null', revision: '1', ...over })
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n') + '\n';
  const T = '.holon/agents/main/timers/t-aaaaaaaa.yaml';
  it('the side that fired further gives the schedule; a summary edit on the other side is kept', () => {
    const r = mergeRecord({ path: T, base: timer(), ours: timer({ fire_count: '2', next_due_at: '"2026-12-01T11:00:00Z"', last_fired_at: '"2026-12-01T10:00:02Z"', last_slot_at: '"2026-12-01T10:00:00Z"', revision: '3' }), theirs: timer({ summary: '"check upgrades"', revision: '2' }), nowMs: NOW });
    expect(r.conflicts).toEqual([]);
    expect(parseYamlRecord(r.text, 't').data).toMatchObject({ fire_count: 2, next_due_at: '2026-12-01T11:00:00Z', summary: 'check upgrades', revision: 4, work_item: null });
  });
  it('a cancel on either side holds', () => {
    const r = mergeRecord({ path: T, base: timer(), ours: timer({ fire_count: '1', next_due_at: '"2026-12-01T10:00:00Z"' }), theirs: timer({ status: '"cancelled"', cancelled_at: '"2026-12-01T09:30:00Z"', next_due_at: 'null' }), nowMs: NOW });
    expect(parseYamlRecord(r.text, 't').data).toMatchObject({ status: 'cancelled', cancelled_at: '2026-12-01T09:30:00Z', next_due_at: null, fire_count: 1 });
  });
  it('an event admitted on two clones: the first admission is kept', () => {
    const ev = (status: string, at: string | null) => `id: "e-aaaaaaaa"\nagent: "main"\nsource: "task"\nstatus: "${status}"\nadmitted_at: ${at ? `"${at}"` : 'null'}\n`;
    const path = '.holon/agents/main/events/e-aaaaaaaa.yaml';
    const first = mergeRecord({ path, base: '', ours: ev('admitted', '2026-12-01T09:00:05Z'), theirs: ev('admitted', '2026-12-01T09:00:01Z'), nowMs: NOW });
    expect(first.conflicts).toEqual([]);
    expect(parseYamlRecord(first.text, 'e').data).toMatchObject({ status: 'admitted', admitted_at: '2026-12-01T09:00:01Z' });
    const queued = mergeRecord({ path: path.replace('events', 'inbox'), base: ev('queued', null), ours: ev('queued', null).replace('task', 'external'), theirs: ev('admitted', '2026-12-01T09:00:01Z'), nowMs: NOW });
    expect(parseYamlRecord(queued.text, 'e').data).toMatchObject({ status: 'admitted', source: 'task' });
  });
  it('focus: the later pick wins', () => {
    const f = (id: string, since: string) => `work_item: "${id}"\nsince: "${since}"\n`;
    const r = mergeRecord({ path: '.holon/agents/main/focus.yaml', base: f('w-1', '2026-12-01T08:00:00Z'), ours: f('w-2', '2026-12-01T09:00:00Z'), theirs: f('w-3', '2026-12-01T09:05:00Z'), nowMs: NOW });
    expect(r.conflicts).toEqual([]);
    expect(parseYamlRecord(r.text, 'f').data).toEqual({ work_item: 'w-3', since: '2026-12-01T09:05:00Z' });
  });
});

describe('text merge (diff3)', () => {
  const t = (...l: string[]) => l.join('\n') + '\n';
  it.each([
    ['disjoint edits', t('a', 'b', 'c', 'd'), t('A', 'b', 'c', 'd'), t('a', 'b', 'c', 'D'), t('A', 'b', 'c', 'D'), false],
    ['insertions at both ends', t('a', 'b'), t('x', 'a', 'b'), t('a', 'b', 'y'), t('x', 'a', 'b', 'y'), false],
    ['the same edit', t('a'), t('b'), t('b'), t('b'), false],
    ['a clash', t('a', 'b'), t('a', 'X'), t('a', 'Y'), t('a', '<<<<<<< ours', 'X', '=======', 'Y', '>>>>>>> theirs'), true],
  ])('%s', (_n, base, ours, theirs, want, conflict) => {
    expect(mergeText(base, ours, theirs)).toEqual({ text: want, conflict });
  });
});
