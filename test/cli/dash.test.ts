import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holon, ROOT } from '../helpers/cli.js';
import { modulesLoaded } from '../helpers/loaded.js';

const NOW = '2026-11-30T06:00:00Z';

/** A home with a gate and the item it holds up, a waiting item, a timer and an outside event (built once: the tests only read it). */
async function reviewerHome(dir: string) {
  const h = (args: string[], env: NodeJS.ProcessEnv = {}) => holon(args, { cwd: dir, env });
  const json = async (args: string[], env: NodeJS.ProcessEnv = {}) => JSON.parse((await h([...args, '--json'], env)).stdout);
  const create = async (objective: string, extra: string[], env: NodeJS.ProcessEnv) => (await h(['new', objective, ...extra], env)).stdout.trim();
  const p = { dir, h, json, create, workFile: (id: string) => join(dir, '.holon/agents/reviewer/work', `${id}.md`) };
  if ((await h(['init', '--agent', 'reviewer'])).code !== 0) throw new Error('init failed');
  const env = { HOLON_NOW: NOW };
  const review = await p.create('Review PR #101 and deliver a conclusion', ['--priority', 'P1'], env);
  const gate = await p.create('Approve the export API change', ['--class', 'user_gate', '--decision-scope', 'api_change:project:export'], env);
  await p.create('Change the export API', ['--needs-decision', 'api_change:project:export'], env);
  const ci = await p.create('Wait for CI on 8e1d0c4', [], env);
  for (const args of [
    ['wait', ci, '--for', 'external:ci:run/7731', '--reason', 'CI on 8e1d0c4', '--recheck', '6h'],
    ['timer', 'add', '--in', '2h', '--summary', 'release window opens'],
    ['notify', 'external:github:pr/101', '--mode', 'message', '--payload', 'LGTM, please merge'],
    ['pick', review],
  ]) {
    const r = await p.h(args, env);
    if (r.code !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  }
  return { ...p, review, gate, ci };
}

let base: string;
let p: Awaited<ReturnType<typeof reviewerHome>>;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'holon-dash-'));
  p = await reviewerHome(base);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('holon dash without a terminal', () => {
  it('prints one plain frame and exits 0: agents, watcher, frontier with codes, countdowns, events, keys', async () => {
    const r = await p.h(['dash'], { HOLON_NOW: '2026-11-30T06:30:00Z', COLUMNS: '160' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const f = r.stdout;
    for (const want of [
      'holon dash  2026-11-30T06:30:00Z  no watcher: nothing runs until `holon watch`',
      `▸ reviewer  idle: 1 decision(s) wait for a person  focus ${p.review} "Review PR #101 and deliver a conclusion"  runs today 0  tokens 0/0`,
      'runnable 1 · needs decision 1 · needs action 0 · waiting 1 · resume candidates 0 · not runnable 1',
      `▸ *${p.review}  P1  runnable  Review PR #101`,
      `${p.gate}  --  decision_required  Approve the export API change`,
      `${p.ci} external:ci:run/7731  recheck in 5h 30m  CI on 8e1d0c4`,
      'due in 1h 30m   release window opens',
      'no runs yet',
      'external/message  external:github:pr/101  via cli:notify by operator  nudged',
      'untrusted data: "LGTM, please merge"',
      '↑↓ item  ⇥ agent  ⏎ record',
    ]) expect(f).toContain(want);
    expect(f).not.toMatch(/\x1b/);
  });

  it('--once cuts lines at the width instead of wrapping them', async () => {
    const r = await p.h(['dash', '--once'], { HOLON_NOW: NOW, COLUMNS: '50' });
    expect(r.code).toBe(0);
    for (const line of r.stdout.trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(50);
    expect(r.stdout).toContain('…');
  });

  it('--json prints the view model', async () => {
    const v = await p.json(['dash'], { HOLON_NOW: NOW });
    expect(v.agent).toBe('reviewer');
    expect(v.watcher).toEqual({ up: false, pid: null, since: null, listen: null });
    expect(v.channels.find((c: { name: string }) => c.name === 'needs_decision').items[0]).toMatchObject({ id: p.gate, code: 'decision_required', gate: true });
    expect(v.waits[0]).toMatchObject({ item: p.ci, resource: 'external:ci:run/7731', countdown: 'recheck in 6h' });
    expect(v.events[0]).toMatchObject({ source: 'external', untrusted: true, payload: 'LGTM, please merge' });
  });

  it('reads only: the records are byte for byte the same afterwards', async () => {
    const before = readFileSync(p.workFile(p.gate), 'utf8');
    expect((await p.h(['dash', '--once'])).code).toBe(0);
    expect(readFileSync(p.workFile(p.gate), 'utf8')).toBe(before);
  });
});

/** The build's map of each bundle file to the packages (and src/ui) it holds (scripts/bundle.mjs). */
const CHUNKS = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/chunks.json'), 'utf8')) as Record<string, string[]>;
const HEAVY = /^(ink|react|react-reconciler|yoga-layout|src\/ui|@modelcontextprotocol\/sdk|chokidar)$/;
/** What a loaded module holds: a bundle file's packages, or the package of a node_modules path. */
function contents(url: string): string[] {
  const chunk = /\/dist\/bundle\/([^/]+)$/.exec(url);
  if (chunk) return CHUNKS[chunk[1]] ?? [`a bundle file chunks.json does not list: ${chunk[1]}`];
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return [pkg[1]];
  return /\/dist\/ui\//.test(url) ? ['src/ui'] : [];
}
const heavy = (mods: string[]) => [...new Set(mods.flatMap(contents).filter((x) => HEAVY.test(x) || x.startsWith('a bundle file')))];

describe('only the heavy commands load ink, react, the MCP SDK or chokidar', () => {
  it('pick, show and --version load none of them; dash does (so the trace sees them)', async () => {
    const words = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/words.json'), 'utf8')) as Record<string, string>;
    for (const args of [['--version'], ['pick', p.ci], ['show', p.ci]]) {
      const mods = await modulesLoaded(args, p.dir);
      // --version answers from bin/holon.js with its boot file alone; pick and show run their own bundle
      // (words.json), and not the whole CLI's.
      const bundles = [...new Set(mods.filter((m) => /\/dist\/bundle\/[^/]+\.c?js$/.test(m)).map((m) => m.split('/').pop()))];
      expect(bundles, args.join(' ')).toEqual(args[0] === '--version' ? ['boot.cjs'] : ['boot.cjs', words[args[0]]]);
      expect(heavy(mods), args.join(' ')).toEqual([]);
    }
    const dash = heavy(await modulesLoaded(['dash', '--once'], p.dir));
    expect(dash).toContain('ink');
    expect(dash).toContain('react');
    expect(dash).toContain('src/ui');
  });
});

describe('holon dash --agent', () => {
  it('--agent shows one agent; an unknown one is exit 4 with the agents named', async () => {
    expect((await p.h(['agent', 'add', 'builder'])).code).toBe(0);
    const all = await p.h(['dash', '--once'], { HOLON_NOW: NOW });
    expect(all.stdout).toContain('  builder  idle: nothing to do');
    const one = await p.h(['dash', '--once', '--agent', 'builder'], { HOLON_NOW: NOW });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('▸ builder');
    expect(one.stdout).not.toContain('reviewer  idle');
    const bad = await p.h(['dash', '--agent', 'nobody']);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('no agent "nobody"');
  });
});
