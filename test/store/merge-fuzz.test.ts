import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMarkdownRecord } from '../../src/core/record-codec.js';
import { addEvidence, addProgress, appendHistory, serializeWork, setOnReturn, viewOf, workFromRecord, type WorkDoc } from '../../src/core/workitem.js';
import type { Wait } from '../../src/core/types.js';
import { BIN, holon, tempDir } from '../helpers/cli.js';
import { git } from '../helpers/clones.js';

/** A small seeded PRNG (mulberry32), so a failing run can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RANK: Record<string, number> = { active: 0, triggered: 1, resolved: 2, cancelled: 2, expired: 2 };
const read = (file: string): WorkDoc => workFromRecord(parseMarkdownRecord(readFileSync(file, 'utf8'), file), file);

/** Takes "ours" in every conflict block (what a person resolving by hand might do). */
const keepOurs = (text: string) => text.replace(/^<{7} [^\n]*\n([\s\S]*?)^={7}\n[\s\S]*?^>{7} theirs\n/gm, '$1');

describe('merge fuzz: random concurrent edits on two clones through real git', () => {
  it('every merge is clean and complete, or a reported conflict on a field both sides changed; no entry is ever lost', async () => {
    const SEED = 20261201;
    const ROUNDS = 10;
    const rand = rng(SEED);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    const base = tempDir('holon-fuzz-');
    const remote = join(base, 'remote.git');
    const dirs = [join(base, 'a'), join(base, 'b')];
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
    execFileSync('git', ['init', '-q', '-b', 'main', dirs[0]]);
    expect((await holon(['init', '--agent', 'main'], { cwd: dirs[0] })).code).toBe(0);
    const id = (await holon(['new', 'Fuzzed item'], { cwd: dirs[0] })).stdout.trim();
    const g = (i: number, ...args: string[]) => git(dirs[i], '-c', `user.email=${i}@t`, '-c', `user.name=c${i}`, ...args);
    g(0, 'remote', 'add', 'origin', remote);
    g(0, 'add', '-A');
    g(0, 'commit', '-qm', 'home');
    g(0, 'push', '-q', 'origin', 'main');
    git(base, 'clone', '-q', remote, dirs[1]);
    git(dirs[1], 'config', 'merge.holon.driver', `'${process.execPath}' '${BIN}' merge-file %O %A %B %P`);
    const file = (i: number) => join(dirs[i], '.holon/agents/main/work', `${id}.md`);

    const progress = new Set<string>();
    const evidence = new Set<string>();
    const history = new Set<string>();
    const waitRank = new Map<string, number>();
    let n = 0;
    let conflictsSeen = 0;
    let checkedReport = false;
    const time = () => `2026-12-01T${String(Math.floor(rand() * 24)).padStart(2, '0')}:${String(Math.floor(rand() * 60)).padStart(2, '0')}:00Z`;

    const edit = (i: number, round: Set<string>, forcePriority?: 'P0' | 'P4') => {
      let doc = read(file(i));
      // Every fourth round both sides also set the priority differently: a true conflict.
      if (forcePriority) {
        doc = { ...doc, item: { ...doc.item, priority: forcePriority } };
        round.add('priority');
      }
      const ops = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < ops; k++) {
        const r = rand();
        const tag = `n${++n}`;
        if (r < 0.25) {
          doc = addProgress(doc, { at: time(), text: `progress ${tag}` });
          progress.add(`progress ${tag}`);
        } else if (r < 0.35) {
          doc = addEvidence(doc, { at: time(), text: `evidence ${tag}`, commit: tag.padEnd(7, '0') });
          evidence.add(`evidence ${tag}`);
        } else if (r < 0.42) {
          doc = appendHistory(doc, { at: time(), text: `history ${tag}` });
          history.add(`history ${tag}`);
        } else if (r < 0.52) {
          const w: Wait = { id: `wt-${tag}`, kind: 'external', resource: `ci:run/${tag}`, reason: 'CI', status: 'active', created_at: time(), recheck_at: null, settled_at: null, settled_reason: null };
          doc = { ...doc, item: { ...doc.item, waits: [...doc.item.waits, w] } };
          waitRank.set(w.id, 0);
        } else if (r < 0.62) {
          const live = doc.item.waits.filter((w) => w.status === 'active' || w.status === 'triggered');
          if (!live.length) continue;
          const w = pick(live);
          const next: Wait = w.status === 'active' ? { ...w, status: 'triggered', settled_at: time(), settled_reason: 'event' } : { ...w, status: 'resolved', resolved_at: time() };
          doc = { ...doc, item: { ...doc.item, waits: doc.item.waits.map((x) => (x.id === w.id ? next : x)) } };
          waitRank.set(w.id, Math.max(waitRank.get(w.id) ?? 0, RANK[next.status]));
        } else if (r < 0.85) {
          doc = { ...doc, item: { ...doc.item, priority: pick(['P0', 'P1', 'P2', 'P3', 'P4'] as const) } };
          round.add('priority');
        } else {
          doc = setOnReturn(doc, `resume at ${tag}`);
          round.add('On return');
        }
      }
      doc = { ...doc, item: { ...doc.item, revision: doc.item.revision + 1 } };
      writeFileSync(file(i), serializeWork(doc));
      g(i, 'commit', '-qam', `edit ${i}`);
    };

    /** Fetches and merges; a conflict must be on a field both sides changed this round, and is resolved. */
    const pull = async (i: number, changedBoth: Set<string>) => {
      g(i, 'fetch', '-q', 'origin', 'main');
      try {
        g(i, 'merge', '-q', '--no-edit', 'FETCH_HEAD');
      } catch {
        conflictsSeen++;
        const text = readFileSync(file(i), 'utf8');
        const labels = [...text.matchAll(/^<{7} ours \(holon merge: (.*?) changed on both sides/gm)].map((m) => m[1].replace(/^section "(.*)"$/, '$1'));
        expect(labels.length).toBeGreaterThan(0);
        for (const l of labels) expect(changedBoth.has(l), `${l}\n${text}`).toBe(true);
        if (!checkedReport) {
          checkedReport = true;
          const check = JSON.parse((await holon(['check', '--json'], { cwd: dirs[i] })).stdout);
          expect(check.problems[0]).toMatchObject({ file: `.holon/agents/main/work/${id}.md`, message: expect.stringMatching(/holon merge: .* changed on both sides/) });
        }
        writeFileSync(file(i), keepOurs(text));
        g(i, 'commit', '-qam', 'resolved');
      }
    };

    for (let round = 0; round < ROUNDS; round++) {
      const changed = [new Set<string>(), new Set<string>()];
      const revBefore = Math.max(read(file(0)).item.revision, read(file(1)).item.revision);
      edit(0, changed[0], round % 4 === 3 ? 'P0' : undefined);
      edit(1, changed[1], round % 4 === 3 ? 'P4' : undefined);
      const both = new Set([...changed[0]].filter((x) => changed[1].has(x)));
      await pull(0, both);
      g(0, 'push', '-q', 'origin', 'main');
      await pull(1, both);
      g(1, 'push', '-q', 'origin', 'main');
      await pull(0, both);
      const texts = [readFileSync(file(0), 'utf8'), readFileSync(file(1), 'utf8')];
      expect(texts[0], `round ${round}: both clones hold the same record`).toBe(texts[1]);
      const doc = read(file(0));
      const view = viewOf(doc);
      const texts2 = (xs: Array<{ text: string }>) => xs.map((x) => x.text);
      expect(texts2(view.progress).sort(), `round ${round} (seed ${SEED})`).toEqual([...progress].sort());
      expect(texts2(view.evidence).sort()).toEqual([...evidence].sort());
      const hist = (doc.body.split('## History')[1] ?? '').split('\n').filter((l) => l.startsWith('- ')).map((l) => l.replace(/^- \S+ /, ''));
      expect(hist.sort()).toEqual([...history].sort());
      expect(doc.item.waits.map((w) => w.id).sort()).toEqual([...waitRank.keys()].sort());
      for (const w of doc.item.waits) expect(RANK[w.status], `wait ${w.id} never moves back`).toBeGreaterThanOrEqual(waitRank.get(w.id)!);
      expect(doc.item.revision).toBeGreaterThan(revBefore);
    }
    // The forced rounds met true conflicts, the others merged clean.
    expect(conflictsSeen).toBeGreaterThanOrEqual(1);
    expect(conflictsSeen).toBeLessThan(ROUNDS * 3);
  });
});
