import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv, ROOT, tempDir } from './cli.js';

/** The Node built-ins a holon process loaded (process.moduleLoadList at exit), stdout and stderr a pipe. */
export function builtinsLoaded(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string[] & { stderr: string }> {
  const file = join(tempDir(), 'loaded.txt');
  return new Promise((res, rej) => {
    execFile(process.execPath, ['--import', join(ROOT, 'test/helpers/loaded-at-exit.mjs'), BIN, ...args], { cwd, env: { ...cleanEnv(), ...env, HOLON_LOADED: file } }, (err, _out, stderr) => {
      if (err) return rej(new Error(`holon ${args.join(' ')}: ${stderr}`));
      const loaded = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('NativeModule ')).map((l) => l.slice('NativeModule '.length));
      res(Object.assign(loaded, { stderr }));
    });
  });
}

/** The module URLs a holon process loads, traced by a resolve hook (no timing). */
export function modulesLoaded(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const file = join(tempDir(), 'modules.txt');
  return new Promise((res, rej) => {
    execFile(process.execPath, ['--import', join(ROOT, 'test/helpers/trace-modules.mjs'), BIN, ...args], { cwd, env: { ...cleanEnv(), ...env, HOLON_TRACE_MODULES: file } }, (err, _out, stderr) => {
      if (err) return rej(new Error(`holon ${args.join(' ')}: ${stderr}`));
      res(readFileSync(file, 'utf8').split('\n').filter(Boolean));
    });
  });
}

/** node:crypto's modules among those a process loaded (builtinsLoaded): some 5 ms a command that loads them. */
export const cryptoIn = (loaded: string[]) => loaded.filter((m) => m === 'crypto' || m.startsWith('internal/crypto/'));
