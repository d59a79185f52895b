import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, project } from '../helpers/cli.js';

// The whole program in a real terminal: tmux runs `holon dash`, the test reads the screen with
// capture-pane, changes the home from other processes, types keys and resizes the window.
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAS_TMUX) console.warn('dash-tmux: skipped, tmux is not installed (apt-get install -y tmux)');

const socket = `holon-dash-test-${process.pid}`;
const tmux = (...args: string[]) =>
  new Promise<string>((res, rej) => execFile('tmux', ['-L', socket, ...args], { encoding: 'utf8' }, (err, out, errOut) => (err ? rej(new Error(`tmux ${args.join(' ')}: ${errOut}`)) : res(out))));
const screen = () => tmux('capture-pane', '-p', '-t', 'dash');

/** Waits for the condition itself, up to a generous bound (the machine is shared). */
async function until<T>(what: string, fn: () => Promise<T | false | null | undefined> | T | false | null | undefined, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  let last = '';
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; screen:\n${last}`);
    last = await screen().catch(() => '(no screen)');
    await new Promise((r) => setTimeout(r, 100));
  }
}
const shows = (text: string) => until(`the screen to show "${text}"`, async () => (await screen()).includes(text));

/** The first screen line at or below the frontier's heading that matches `re`, or -1. */
function rowOf(s: string, re: RegExp): number {
  const lines = s.split('\n');
  const from = Math.max(0, lines.findIndex((l) => l.includes('frontier of')));
  const k = lines.slice(from).findIndex((l) => re.test(l));
  return k < 0 ? -1 : from + k;
}

/**
 * Moves the selection to item `id`'s own row (ui/FrontierPane.tsx: a mark, the focus star or a space,
 * then the id; a mention of it in another row's detail does not count), one key at a time: each key
 * is decided on a screen drawn after the previous one moved the selection, so a slow redraw never
 * makes it overshoot.
 */
async function select(id: string) {
  const selected = /▸ /;
  const own = new RegExp(`(▸ |  )[* ]${id} `);
  await until(`${id} selected`, async () => {
    const s = await screen();
    const row = rowOf(s, selected);
    const target = rowOf(s, own);
    if (row >= 0 && row === target) return true;
    await tmux('send-keys', '-t', 'dash', row < target ? 'Down' : 'Up');
    await until('the selection to move', async () => rowOf(await screen(), selected) !== row);
    return false;
  });
}

afterEach(async () => {
  await tmux('kill-server').catch(() => {});
});

describe.skipIf(!HAS_TMUX)('holon dash in a real terminal (tmux)', () => {
  it('follows changes made elsewhere, approves a gate with keys and a confirmation, survives a resize, quits with q', async () => {
    const p = await project('reviewer');
    const gate = await p.create('Approve the export API change', ['--class', 'user_gate', '--decision-scope', 'api_change:project:export']);
    await p.create('Change the export API', ['--needs-decision', 'api_change:project:export']);
    const ci = await p.create('Wait for CI on 8e1d0c4');
    expect((await p.h(['wait', ci, '--for', 'external:ci:run/7731', '--reason', 'CI on 8e1d0c4'])).code).toBe(0);

    const rc = join(p.dir, 'dash.rc');
    // A clean environment: no HOLON_* of the developer's, colours allowed, a common terminal type.
    const cmd = `env -i PATH=${JSON.stringify(process.env.PATH ?? '/usr/bin:/bin')} HOME=${JSON.stringify(p.dir)} TERM=xterm-256color ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} dash; echo $? > ${JSON.stringify(rc)}`;
    await tmux('new-session', '-d', '-s', 'dash', '-x', '120', '-y', '50', '-c', p.dir, cmd);
    await shows('needs decision 1');
    await shows(`${ci} external:ci:run/7731  recheck in`);

    // Another process adds an item and wakes the wait: the screen follows without a key.
    expect((await p.h(['new', 'Added from another terminal'])).code).toBe(0);
    await shows('Added from another terminal');
    expect((await p.h(['notify', 'external:ci:run/7731'])).code).toBe(0);
    await shows('resume candidates 1');
    await shows('woken by external');

    // Select the gate, approve, confirm: recorded as the operator through `holon decide`'s code.
    await select(gate);
    await tmux('send-keys', '-t', 'dash', 'a');
    await shows(`approve ${gate} as the operator? y/n`);
    expect(readFileSync(p.workFile(gate), 'utf8')).not.toContain('decision: "approved"');
    await tmux('send-keys', '-t', 'dash', 'y');
    await until('the gate record to be approved', () => {
      const text = readFileSync(p.workFile(gate), 'utf8');
      return text.includes('decision: "approved"') && text.includes('decided_by: "operator"') && text.includes('status: "done"');
    });
    await shows(`${gate} approved api_change:project:export by operator`);
    await shows('needs decision 0');

    // Narrow the window: lines are cut at the new width, never wrapped.
    await tmux('resize-window', '-t', 'dash', '-x', '50', '-y', '30');
    await until('a frame drawn at 50 columns', async () => {
      const s = await screen();
      const lines = s.split('\n');
      // One frame only: no wrapped remains of the wide one above or below it.
      return lines[0].startsWith('holon dash') && lines[0].endsWith('…') && lines.every((l) => [...l].length <= 50) && s.split('holon dash').length === 2;
    });

    await tmux('send-keys', '-t', 'dash', 'q');
    await until('dash to exit', () => existsSync(rc) && readFileSync(rc, 'utf8').trim() !== '');
    expect(readFileSync(rc, 'utf8').trim()).toBe('0');
  }, 300_000);

  it('reopens a blocked item with u and a confirmation, through the same operation as holon reopen', async () => {
    const p = await project('reviewer');
    const stuck = await p.create('Publish the release notes');
    expect((await p.h(['block', stuck, '--reason', 'the docs site is down', '--recovery', 'reopen when it is back'])).code).toBe(0);
    const rc = join(p.dir, 'dash.rc');
    const cmd = `env -i PATH=${JSON.stringify(process.env.PATH ?? '/usr/bin:/bin')} HOME=${JSON.stringify(p.dir)} TERM=xterm-256color ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} dash; echo $? > ${JSON.stringify(rc)}`;
    await tmux('new-session', '-d', '-s', 'dash', '-x', '120', '-y', '50', '-c', p.dir, cmd);
    await shows(stuck);
    await select(stuck);
    await tmux('send-keys', '-t', 'dash', 'u');
    await shows(`reopen ${stuck}? y/n`);
    expect(readFileSync(p.workFile(stuck), 'utf8')).toContain('status: "blocked"');
    await tmux('send-keys', '-t', 'dash', 'y');
    await until('the record to be open again, with a History line', () => {
      const text = readFileSync(p.workFile(stuck), 'utf8');
      return text.includes('status: "open"') && /reopen/i.test(text.slice(text.indexOf('## History')));
    });
    await shows(`${stuck} reopened`);
    await tmux('send-keys', '-t', 'dash', 'q');
    await until('dash to exit', () => existsSync(rc) && readFileSync(rc, 'utf8').trim() !== '');
    expect(readFileSync(rc, 'utf8').trim()).toBe('0');
  }, 300_000);
});
