import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bold, dim } from './output.js';
import { writeOut } from './stdout.js';

const BIN = fileURLToPath(new URL('../../bin/holon.js', import.meta.url));

/** Runs the real binary for the demo transcript, the way a person or an agent would type it. */
export class DemoShell {
  readonly steps: Array<{ args: string[]; code: number; stdout: string }> = [];
  constructor(
    readonly home: string,
    readonly env: NodeJS.ProcessEnv,
    readonly print: boolean,
  ) {}

  say(text: string): void {
    if (this.print) writeOut(`\n${bold('# ' + text)}\n`);
  }

  /** Runs `holon ARGS`; fails the demo unless the exit code is the expected one. */
  holon(args: string[], opts: { expect?: number; quiet?: boolean; env?: NodeJS.ProcessEnv; input?: string } = {}): string {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      env: { ...this.env, ...opts.env, HOLON_HOME: this.home },
      encoding: 'utf8',
      input: opts.input,
    });
    const code = r.status ?? 1;
    this.steps.push({ args, code, stdout: r.stdout });
    if (this.print) {
      writeOut(`${dim('$')} holon ${args.map((a) => (/[\s"#]/.test(a) ? JSON.stringify(a) : a)).join(' ')}\n`);
      if (!opts.quiet) writeOut((r.stdout + r.stderr).replace(/\n*$/, '\n').replace(/^\n$/, ''));
    }
    if (code !== (opts.expect ?? 0)) {
      throw new Error(`demo step failed: holon ${args.join(' ')} exited ${code}\n${r.stderr}`);
    }
    return r.stdout.trim();
  }

  json<T = any>(args: string[]): T {
    return JSON.parse(this.holon([...args, '--json'], { quiet: true })) as T;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `ready()` holds: the demo's stand-in for time passing between turns. */
export async function until(what: string, ready: () => boolean, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`demo: timed out waiting for ${what}`);
    await sleep(50);
  }
}
