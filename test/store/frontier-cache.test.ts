import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeFrontier } from '../../src/core/frontier.js';
import { headerFor, stillValid, storeFrontier } from '../../src/store/frontier-cache.js';
import { openAnswerText, readCachedFrontier, type TextCopy } from '../../src/store/answer-file.js';
import { loadFrontierInput } from '../../src/store/frontier-input.js';
import { openHome } from '../../src/store/home.js';
import { GRAPH_STAMP } from '../../src/store/graph-index.js';
import { readStatIndex, statIndexStamped, writeStatIndex } from '../../src/store/stat-index.js';
import { project, tempDir } from '../helpers/cli.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' }).trim();

const NOW = '2026-11-30T06:00:00Z';

/**
 * S1: the result cache's signatures (events, run records, git objects of unknown commits) vouch for
 * what the evaluation read, so each is taken before its read. Here the change lands in the window a
 * concurrent writer could hit: after the evaluation read the data, before the answer's header is
 * built. The header must not sign the new state as seen (stillValid false), else the stale answer
 * would be served until something else changed.
 */
describe('the frontier cache signs what it read, not what came after', () => {
  it('an event, a run record or a fetched object landing after the read invalidates the answer', async () => {
    const p = await project();
    git(p.dir, 'init', '-q', '-b', 'main');
    git(p.dir, 'commit', '-q', '--allow-empty', '-m', 'v1');
    const peer = join(tempDir(), 'peer');
    git(p.dir, 'clone', '-q', p.dir, peer);
    git(peer, 'commit', '-q', '--allow-empty', '-m', 'side');
    const side = git(peer, 'rev-parse', 'HEAD');
    const waiting = await p.create('after the CI run', [], { HOLON_NOW: NOW });
    expect((await p.h(['defer', waiting, '--when', 'event:ci:run/1', '--reason', 'CI'], { HOLON_NOW: NOW })).code).toBe(0);
    await p.create('on a budget', ['--budget', 'runs=1'], { HOLON_NOW: NOW });
    const ported = await p.create('port the side fix', [], { HOLON_NOW: NOW });
    expect((await p.h(['evidence', ported, 'works on the side', '--commit', side], { HOLON_NOW: NOW })).code).toBe(0);

    const home = openHome({ cwd: p.dir, env: {} });
    const nowMs = Date.parse(NOW);
    const changes: Array<[string, () => void]> = [
      ['an event record', () => (mkdirSync(join(p.home, 'agents/main/events'), { recursive: true }), writeFileSync(join(p.home, 'agents/main/events/e-late0001.yaml'), 'id: "e-late0001"\nstatus: "admitted"\nresource: "ci:run/1"\n'))],
      ['a run record', () => (mkdirSync(join(p.home, 'local/runs'), { recursive: true }), writeFileSync(join(p.home, 'local/runs/r-late0001.json'), '{}'))],
      ['a fetch', () => git(p.dir, 'fetch', '-q', peer, 'main:side')],
    ];
    // Evaluates, lets `between` run after the reads and before the header, and says if the answer still holds.
    const answerHolds = async (between: () => void) => {
      const { input, used } = await loadFrontierInput(home, 'main', { holder: 'agent:main', nowMs, cwd: p.dir });
      const bounds = { from: -Infinity, until: Infinity };
      const f = computeFrontier(input, { bounds });
      // It read all three: the agent's events, the run records (a budget), git about an unknown commit.
      expect(Object.keys(used.eventSigs)).toEqual(['main']);
      expect(used.spending).toBe(true);
      expect(used.unknownCommits).toEqual([side]);
      between();
      return stillValid(home, { ...headerFor('fp', 'gfp', bounds, used, f.now), v: 6, token: 't' }, nowMs, p.dir);
    };
    for (const [what, change] of changes) {
      expect(await answerHolds(() => {}), `${what}: nothing changed`).toBe(true);
      expect(await answerHolds(change), `${what}: signed as seen`).toBe(false);
    }
  });
});

describe('the graph snapshot (graph-A.idx) of another build', () => {
  it('is ignored: its hashes are that build\'s', () => {
    const path = join(tempDir(), 'graph-main.idx');
    const idx = { names: 'a.md\nb.md', count: 2, stats: new Float64Array([1, 2, 3, 4, 5, 6, 7, 8]), hashes: new Float64Array([9, 10]), titles: new Float64Array([11, 12]), prios: new Float64Array([13, 14]), sums: new Float64Array([19, 23, 27]), mark: 'e1:42' };
    writeStatIndex(path, idx, GRAPH_STAMP, tempDir());
    expect(readStatIndex(path, GRAPH_STAMP)).toMatchObject({ names: 'a.md\nb.md', count: 2, mark: 'e1:42' });
    expect([...readStatIndex(path, GRAPH_STAMP)!.hashes]).toEqual([9, 10]);
    expect([...readStatIndex(path, GRAPH_STAMP)!.titles]).toEqual([11, 12]);
    expect([...readStatIndex(path, GRAPH_STAMP)!.prios]).toEqual([13, 14]);
    expect([...readStatIndex(path, GRAPH_STAMP)!.sums]).toEqual([19, 23, 27]);
    // Its numbers are views of the memory the file was read into, not a copy of their own (store/aligned.ts).
    expect(readStatIndex(path, GRAPH_STAMP)!.stats.buffer.byteLength).toBeGreaterThanOrEqual(statSync(path).size);
    expect(statIndexStamped(path, GRAPH_STAMP)).toBe(true);
    writeStatIndex(path, idx, 'another build', tempDir());
    expect(readStatIndex(path, GRAPH_STAMP)).toBeNull();
    expect(statIndexStamped(path, GRAPH_STAMP)).toBe(false);
  });
});

describe('a stored answer printed from its file', () => {
  it('copies the bytes after the start that was read, from the file as opened, and never those of another answer', async () => {
    const p = await project();
    const home = openHome({ cwd: p.dir, env: {} });
    const view = { limit: undefined, all: false };
    const header = { fp: 'f', gfp: 'g', from: null, until: null, workspace: null, events: {}, now: NOW };
    // Longer than a few of the copy's chunks (64 KB), with multi-byte characters across their edges.
    const text = Buffer.from(`{\n${'é-ü-'.repeat(60_000)}\n}`);
    const { token, written } = storeFrontier(home, 'main', view, header, text, null);
    expect(written).toBe(true);
    const start = readCachedFrontier(home, 'main', view, 1000)!;
    expect(start.partial).toBe(true);
    const copied = (c: TextCopy) => {
      const chunks: Buffer[] = [];
      // Each chunk is valid only during the call: kept as a copy.
      c.copy((chunk) => chunks.push(Buffer.from(chunk)));
      return Buffer.concat(chunks);
    };
    const rest = copied(openAnswerText(home, 'main', view, token, start.bytes.length)!);
    expect(Buffer.concat([start.bytes.subarray(start.start), rest]).equals(text)).toBe(true);

    // Opened, then another answer stored over it: the copy is of the one opened.
    const open = openAnswerText(home, 'main', view, token, start.bytes.length)!;
    storeFrontier(home, 'main', view, header, Buffer.from('{\n  "other": true\n}'), null);
    expect(copied(open).equals(rest)).toBe(true);
    // Asked for after that: null, nothing copied.
    expect(openAnswerText(home, 'main', view, token, start.bytes.length)).toBeNull();
    // Copied once only: its file is closed after the copy.
    expect(() => open.copy(() => undefined)).toThrow(/copied twice/);
  });
});

describe('a snapshot patched in place', () => {
  it('is written again from the bytes it was read from, byte for byte what a snapshot built anew gives', () => {
    const dir = tempDir();
    const path = join(dir, 'graph-main.idx');
    const n = 3;
    const idx = {
      names: 'a.md\nb.md\nc.md', count: n, stats: Float64Array.from({ length: 4 * n }, (_, i) => i + 0.5), hashes: Float64Array.of(1, 2, 3),
      titles: Float64Array.of(4, 5, 6), prios: Float64Array.of(7, 8, 9), sums: Float64Array.of(6, 15, 24), mark: 'e1:41',
    };
    writeStatIndex(path, idx, GRAPH_STAMP, dir, 'd'.repeat(40));
    const read = readStatIndex(path, GRAPH_STAMP)!;
    expect(read.read).toBeDefined();
    // Patched as graph-index.ts patches a snapshot: numbers, hashes and sums in place, a new mark.
    read.stats.set([99, 98, 97, 96], 4);
    read.hashes[1] = 20;
    read.sums[0] = 24;
    /** What a snapshot with the same content, built anew (no bytes it was read from), writes. */
    const anew = (x: typeof read) => {
      const other = join(dir, 'anew.idx');
      writeStatIndex(other, { names: x.names, count: x.count, stats: x.stats.slice(), hashes: x.hashes.slice(), titles: x.titles.slice(), prios: x.prios.slice(), sums: x.sums.slice(), mark: x.mark }, GRAPH_STAMP, dir, 'e'.repeat(40));
      return readFileSync(other);
    };
    for (const mark of ['e1:42', 'e1:1000']) {
      writeStatIndex(path, { ...read, mark }, GRAPH_STAMP, dir, 'e'.repeat(40));
      expect(readFileSync(path).equals(anew({ ...read, mark }))).toBe(true);
      // Written from its own bytes (their head now says the new mark) where the mark kept its length.
      expect(read.read!.buf.includes(Buffer.from(mark))).toBe(mark.length === 'e1:41'.length);
      const again = readStatIndex(path, GRAPH_STAMP)!;
      expect([...again.stats.subarray(4, 8)]).toEqual([99, 98, 97, 96]);
      expect([...again.hashes]).toEqual([1, 20, 3]);
      expect(again.mark).toBe(mark);
      expect(again.digest).toBe('e'.repeat(40));
    }
    // An array that is not the view it was read as (same names, same count): built anew from the
    // arrays given, its bytes left as they were.
    const titles = Float64Array.of(40, 50, 60);
    const before = Buffer.from(read.read!.buf);
    writeStatIndex(path, { ...read, mark: 'e1:43', titles }, GRAPH_STAMP, dir, 'e'.repeat(40));
    expect(read.read!.buf.equals(before)).toBe(true);
    expect([...readStatIndex(path, GRAPH_STAMP)!.titles]).toEqual([40, 50, 60]);
    // Other names: built anew from the arrays given.
    const fewer = { ...read, names: 'a.md\nb.md', count: 2, stats: read.stats.slice(0, 8), hashes: read.hashes.slice(0, 2), titles: read.titles.slice(0, 2), prios: read.prios.slice(0, 2), starts: undefined };
    writeStatIndex(path, fewer, GRAPH_STAMP, dir, 'f'.repeat(40));
    expect(readStatIndex(path, GRAPH_STAMP)).toMatchObject({ names: 'a.md\nb.md', count: 2 });
  });
});
