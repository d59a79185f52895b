import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, project } from '../helpers/cli.js';
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
    // Into a file, and into a pipe: the same bytes.
    const file = await sh(`${holon} frontier --json --all > out.json && wc -c < out.json`, p.dir);
    expect(file.stdout.trim()).toBe(bytes);
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
