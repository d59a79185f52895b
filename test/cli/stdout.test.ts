import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, project } from '../helpers/cli.js';
import { builtinsLoaded } from '../helpers/loaded.js';
import { writeGraph } from '../helpers/graph.js';

// holon prints with fs.writeSync on fd 1 (src/cli/stdout.ts) instead of process.stdout: these are
// the behaviours the stream gave that must stay.

const sh = (script: string, cwd: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((res) =>
    execFile('bash', ['-c', script], { cwd, env: { ...cleanEnv(), HOLON_AGENT: 'main', PATH: process.env.PATH }, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      res({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })));

describe('standard output', () => {
  it('a reader that stops early ends the command with exit 0 and no message; a whole read gets every byte', async () => {
    const p = await project();
    writeGraph(join(p.home, 'agents/main/work'), 400);
    const holon = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;
    const whole = await sh(`${holon} frontier --json --all | wc -c; echo "exit \${PIPESTATUS[0]}"`, p.dir);
    const [bytes, exit] = whole.stdout.trim().split('\n');
    // Far more than a pipe holds (64 KiB), so the early reader below closes it mid-write.
    expect(Number(bytes)).toBeGreaterThan(70_000);
    expect(exit).toBe('exit 0');
    const early = await sh(`${holon} frontier --json --all | head -c 100 >/dev/null; echo "exit \${PIPESTATUS[0]}"`, p.dir);
    expect(early.stdout.trim()).toBe('exit 0');
    expect(early.stderr).toBe('');
    // Into a file, and into a pipe: the same bytes. (Reused from the cache: its first bytes read, the
    // rest copied from its file, ops/frontier.ts frontierOut.)
    const file = await sh(`HOLON_TRACE_INDEX=1 ${holon} frontier --json --all > out.json && wc -c < out.json`, p.dir);
    expect(file.stdout.trim()).toBe(bytes);
    expect(file.stderr).toMatch(/the rest copied from its file/);
  });

  it('a pipe another process made non-blocking (EAGAIN) still gets every byte, in order, once its reader drains it', async () => {
    const p = await project();
    writeGraph(join(p.home, 'agents/main/work'), 400);
    const node = JSON.stringify(process.execPath);
    // One clock for both runs, so that they print the same bytes.
    const holon = `HOLON_NOW=2026-11-30T06:00:00Z ${node} ${JSON.stringify(BIN)}`;
    expect((await sh(`${holon} frontier --json --all > whole.json`, p.dir)).code).toBe(0);
    // The sibling shares the pipe: making its process.stdout sets O_NONBLOCK on it, for holon too. The
    // reader starts late, so holon's output (more than the pipe holds) meets a full pipe.
    const script = `{
  ${node} -e "process.stdout.write(''); require('fs').writeFileSync('ready', ''); setTimeout(() => {}, 60000)" &
  sibling=$!
  while [ ! -f ready ]; do sleep 0.05; done
  ${holon} frontier --json --all; echo "exit $?" > holon-exit
  kill $sibling
} | { sleep 1; cat > got.json; }
cmp whole.json got.json && cat holon-exit`;
    const r = await sh(script, p.dir);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('exit 0');
  }, 60_000);

  it('output that cannot be written (a full disk) ends the command with exit 1 and says so, with no stack trace', async () => {
    const p = await project();
    const id = await p.create('x');
    const holon = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;
    for (const args of ['list', 'list --json', `show ${id}`, 'show w-nope --json']) {
      const r = await sh(`${holon} ${args} > /dev/full`, p.dir);
      expect(r.code, args).toBe(1);
      expect(r.stderr, args).toContain('holon: cannot write to standard output: ENOSPC');
      expect(r.stderr, args).not.toMatch(/\n\s+at /);
    }
    // The work was done before the output: a write command's record is there.
    expect((await sh(`${holon} progress ${id} "noted while stdout was full" > /dev/full`, p.dir)).code).toBe(1);
    expect((await p.json(['show', id])).revision).toBe(2);
  });

  it('watch, dash and mcp write through the streams (a stalled reader must not stop their event loop); short commands do not make them', async () => {
    const p = await project();
    const id = await p.create('x');
    // A pipe for stderr, as in `holon watch 2>&1 | less`: making process.stderr there loads net.
    const loaded = (args: string[]) => builtinsLoaded(args, p.dir, { HOLON_AGENT: 'main' });
    expect(await loaded(['watch', '--once'])).toContain('net');
    expect(await loaded(['wait', id, '--for', 'external:ci:run/1', '--reason', 'CI'])).not.toContain('net');
  });
});

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAS_TMUX) console.warn('stdout: the terminal case is skipped, tmux is not installed (apt-get install -y tmux)');
const socket = `holon-stdout-test-${process.pid}`;
const tmux = (...args: string[]) =>
  new Promise<string>((res, rej) => execFile('tmux', ['-L', socket, ...args], { encoding: 'utf8' }, (err, out, errOut) => (err ? rej(new Error(`tmux ${args.join(' ')}: ${errOut}`)) : res(out))));

afterEach(async () => {
  if (HAS_TMUX) await tmux('kill-server').catch(() => {});
});

describe.skipIf(!HAS_TMUX)('standard output in a terminal (tmux)', () => {
  it('is coloured on a terminal, plain through a pipe or with NO_COLOR', async () => {
    const p = await project();
    const id = await p.create('Colour check');
    const holon = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;
    const env = `env -i PATH=${JSON.stringify(process.env.PATH ?? '/usr/bin:/bin')} HOME=${JSON.stringify(p.dir)} TERM=xterm-256color HOLON_AGENT=main`;
    const cmd = `${env} ${holon} show ${id}; echo ==piped; ${env} ${holon} show ${id} | cat; echo ==nocolor; ${env} NO_COLOR=1 ${holon} show ${id}; echo ==end; sleep 60`;
    await tmux('new-session', '-d', '-s', 'out', '-x', '120', '-y', '50', '-c', p.dir, cmd);
    let screen = '';
    for (let i = 0; i < 450 && !screen.includes('==end'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      screen = await tmux('capture-pane', '-p', '-e', '-t', 'out');
    }
    const [tty, rest] = screen.split('==piped');
    const [piped, nocolor] = rest.split('==nocolor');
    expect(tty).toContain(id);
    expect(tty).toMatch(/\x1b\[1m/);
    expect(piped).toContain(id);
    expect(piped).not.toMatch(/\x1b\[[12]m/);
    expect(nocolor).toContain(id);
    expect(nocolor.split('==end')[0]).not.toMatch(/\x1b\[[12]m/);
  }, 60_000);
});
