import type { ReactElement } from 'react';
import { render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { HomeSnapshot } from '../../src/ops/home-snapshot.js';
import { App, type DashActions } from '../../src/ui/App.js';
import { EventsPane } from '../../src/ui/EventsPane.js';
import { Frame } from '../../src/ui/Frame.js';
import { ThemeContext } from '../../src/ui/theme.js';
import { buildView } from '../../src/ui/view-model.js';
import { agent, event, gate, mk, NOW, run, snapshot, timer, wait } from './dash-fixtures.js';

afterEach(() => cleanup());

const home = () =>
  snapshot([
    agent('main', [
      mk({ id: 'w-r', title: 'Review PR #101', priority: 'P1' }),
      gate('w-g'),
      mk({ id: 'w-n', title: 'Change the export API', needs_decision: ['api_change:project:x'] }),
      mk({ id: 'w-w', title: 'Wait for CI', waits: [wait('active', { resource: 'ci:run/7731', recheck_at: '2026-11-30T07:00:00Z' })] }),
      mk({ id: 'w-b', title: 'Blocked one', status: 'blocked', blocker: { reason: 'no creds', recovery: 'ask', since: '2026-11-30T05:00:00Z' } }),
    ], {
      focus: 'w-r',
      timers: [timer({ id: 't-1', summary: 'release window', next_due_at: '2026-11-30T08:00:00Z' })],
      runs: [run({ id: 'r-1', work_item: 'w-r', started_at: '2026-11-30T05:59:00Z' })],
      events: [event({ id: 'e-1', payload: 'please \x1b[2Jmerge', provenance: 'ingress:tk-1' })],
    }),
    agent('other', [mk({ id: 'w-o', title: 'Other work' })]),
  ], { live_runs: ['r-1'], log_tails: { 'r-1': 'checking out\nrunning tests\n' }, watcher: { pid: 4242, started_at: '2026-11-30T05:00:00Z', listen: null } });

const plain = (node: ReactElement) => <ThemeContext.Provider value={{ color: false }}>{node}</ThemeContext.Provider>;

/** Waits for the condition itself (ink renders input asynchronously), up to a generous bound. */
async function until(what: string, fn: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last frame:\n${(globalThis as any).__last?.()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Frame', () => {
  it('shows agents, the frontier with codes, waits with countdowns, the live run and its log, events, keys', () => {
    const { lastFrame } = render(plain(<Frame view={buildView(home(), { agent: null, item: null }, NOW)} mode="main" width={140} />));
    const f = lastFrame()!;
    for (const want of [
      'watcher up (pid 4242)',
      '▸ main  running r-1 for wait_triggered on w-r (1m)  focus w-r "Review PR #101"  runs today 1',
      '  other  idle: 1 runnable',
      'needs decision 1',
      '▸ *w-r  P1  runnable  Review PR #101',
      'w-g  --  decision_required',
      'w-b  --  blocked  Blocked one',
      'w-w external:ci:run/7731  recheck in 1h  CI',
      'timer t-1  due in 2h',
      'live run r-1 on w-r for wait_triggered: running, 1m',
      '│ running tests',
      'external/wake_hint  external:ci:run/7  via ingress:tk-1',
      'untrusted data: "please merge"',
      '↑↓ item  ⇥ agent',
    ]) expect(f).toContain(want);
    expect(f).not.toContain('\x1b');
  });

  it('at a narrow width every line is cut, never wrapped, wide characters included', () => {
    const snap = snapshot([agent('main', [mk({ id: 'w-wide', title: '日本語のタイトルはとても長いのでここで切られるはずです'.repeat(2) })])]);
    const wide = render(plain(<Frame view={buildView(snap, { agent: null, item: null }, NOW)} mode="main" width={200} />)).lastFrame()!;
    const narrow = render(plain(<Frame view={buildView(snap, { agent: null, item: null }, NOW)} mode="main" width={40} />)).lastFrame()!;
    const lines = narrow.split('\n');
    for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(40);
    expect(lines.length).toBe(wide.split('\n').length);
    expect(narrow).toContain('…');
  });

  it('with a height it fills exactly that many lines: the body cut at the bottom, the key line kept', () => {
    const lines = render(plain(<Frame view={buildView(home(), { agent: null, item: null }, NOW)} mode="main" width={100} rows={12} height={12} />)).lastFrame()!.split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[0]).toMatch(/^holon dash/);
    expect(lines[4]).toMatch(/^frontier of main/);
    expect(lines[5]).toBe('runnable');
    expect(lines[11]).toMatch(/^↑↓ item/);
  });

  it('the record pane shows the file from the scroll position', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
    const f = render(plain(<Frame view={buildView(home(), { agent: null, item: null }, NOW)} mode="record" record={{ title: 'w-r  /h/w-r.md', lines, scroll: 10 }} rows={20} />)).lastFrame()!;
    expect(f).toContain('w-r  /h/w-r.md  (lines 11-24 of 50)');
    expect(f).toContain('line 11');
    expect(f).not.toContain('line 10\n');
    expect(f).toContain('esc back');
  });

  it('an operator message is not marked untrusted', () => {
    const [e] = buildView(snapshot([agent('main', [], { events: [event({ id: 'e-1', source: 'operator', mode: 'message', payload: 'use staging' })] })]), { agent: null, item: null }, NOW).events;
    expect(render(plain(<EventsPane events={[e]} />)).lastFrame()).toContain('message: "use staging"');
  });
});

describe('App (keys)', () => {
  function setup(snap: HomeSnapshot = home()) {
    const calls: string[] = [];
    let fire: (() => void) | null = null;
    let current = snap;
    const actions: DashActions = {
      decide: async (id, d) => (calls.push(`decide ${id} ${d}`), `${id} ${d}`),
      tell: async (a, w, t) => (calls.push(`tell ${a} ${w} ${t}`), `told ${a}`),
      reopen: async (id) => (calls.push(`reopen ${id}`), `${id} reopened`),
      record: (id) => ({ title: `${id}  file`, text: `---\nid: "${id}"\n---\n\n## Objective\n\nrecord of ${id}\x1b]0;pwned\x07 \x1b[2Jend` }),
    };
    const app = render(plain(
      <App initial={snap} load={async () => current} subscribe={async (onChange) => ((fire = onChange), async () => {})} actions={actions} clock={() => NOW} />,
    ));
    (globalThis as any).__last = app.lastFrame;
    const press = async (keys: string, expect: string) => {
      app.stdin.write(keys);
      await until(`"${expect}" after ${JSON.stringify(keys)}`, () => app.lastFrame()!.includes(expect));
    };
    return { app, calls, press, change: (next: HomeSnapshot) => ((current = next), fire?.()), subscribed: () => fire !== null };
  }

  it('approves a gate only after y, and says so', async () => {
    const { app, calls, press } = setup();
    await press('\x1b[B', '▸  w-g');
    await press('a', 'approve w-g as the operator? y/n');
    expect(calls).toEqual([]);
    await press('y', 'w-g approved');
    expect(calls).toEqual(['decide w-g approved']);
    expect(app.lastFrame()).not.toContain('y/n');
  });

  it('n cancels a rejection; a on a non-gate explains what to select', async () => {
    const { calls, press } = setup();
    await press('a', 'select a gate under "needs decision"');
    await press('j', '▸  w-g');
    await press('x', 'reject w-g as the operator? y/n');
    await press('n', 'nothing changed');
    expect(calls).toEqual([]);
  });

  it('reopens a blocked item after confirmation', async () => {
    const { calls, press } = setup();
    for (const k of ['j', 'j', 'j']) await press(k, '');
    await press('j', '▸  w-b');
    await press('u', 'reopen w-b? y/n');
    await press('y', 'w-b reopened');
    expect(calls).toEqual(['reopen w-b']);
  });

  it('tells the agent what is typed, about the selected item', async () => {
    const { calls, press } = setup();
    await press('t', 'tell main (about w-r):');
    await press('use the staging cluster', 'use the staging cluster█');
    await press('\r', 'told main');
    expect(calls).toEqual(['tell main w-r use the staging cluster']);
  });

  it('opens the record, follows the log, switches agents, and redraws on a home change', async () => {
    const { press, change, subscribed } = setup();
    await press('\r', 'record of w-r end');
    await press('\x1b', 'frontier of main');
    await press('f', 'following run r-1');
    await press('f', 'frontier of main');
    await press('\t', 'frontier of other');
    await until('the subscription', subscribed);
    const next = home();
    next.agents[1] = agent('other', [mk({ id: 'w-new', title: 'Added from elsewhere' })]);
    change(next);
    await press('', 'Added from elsewhere');
  });
});
