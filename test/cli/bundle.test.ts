import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, project, ROOT, tempDir } from '../helpers/cli.js';
import { builtinsLoaded, modulesLoaded } from '../helpers/loaded.js';

/** The build's map of each light command word to its own bundle (scripts/bundle.mjs). */
const readWords = () => JSON.parse(readFileSync(join(ROOT, 'dist/bundle/words.json'), 'utf8')) as Record<string, string>;

describe('the bundled CLI', () => {
  it('has one build id, in the bundle and next to the tsc output (the frontier cache keys on it)', async () => {
    const id = readFileSync(join(ROOT, 'dist/build-id.txt'), 'utf8').trim();
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect((await import('../../dist/build-id.js')).BUILD_ID).toBe(id);
    const files = Object.keys(JSON.parse(readFileSync(join(ROOT, 'dist/bundle/chunks.json'), 'utf8')));
    const holding = files.filter((f) => readFileSync(join(ROOT, 'dist/bundle', f), 'utf8').includes(JSON.stringify(id)));
    // One chunk of the whole CLI's split build; and each command's own bundle that caches a frontier.
    expect(holding.filter((f) => !f.startsWith('cmd-'))).toHaveLength(1);
    const words = readWords();
    expect(holding).toContain(words.frontier);
  });

  it('says how to build a checkout that was never built, not a stack trace', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'bin'));
    for (const f of ['holon.js', 'package.json']) cpSync(join(ROOT, 'bin', f), join(dir, 'bin', f));
    const r = await new Promise<{ code: number; stderr: string }>((res) => {
      execFile(process.execPath, [join(dir, 'bin/holon.js'), 'frontier'], { env: cleanEnv(), encoding: 'utf8' }, (err, _o, stderr) => res({ code: err ? Number((err as any).code) : 0, stderr }));
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^holon: not built: .*boot\.cjs is missing\n  fix: run `npm install`/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs each light command from its own bundle, with the same definition the whole CLI has', async () => {
    const words = readWords();
    // The commands run dozens of times a day have one; the heavy ones (watch, dash, mcp...) have none.
    expect(Object.keys(words)).toEqual(expect.arrayContaining(['show', 'pick', 'progress', 'evidence', 'wait', 'new', 'list', 'frontier', 'resume', 'prime', 'hook', 'complete', 'claim', 'notify', 'timer', 'edit']));
    for (const heavy of ['watch', 'dash', 'mcp', 'sync', 'thread', 'runs', 'explain', 'init', 'agent', 'check', 'demo']) expect(words, heavy).not.toHaveProperty(heavy);
    const p = await project();
    for (const word of Object.keys(words)) {
      // `holon help WORD` runs the whole CLI (its word is "help"); `holon WORD --help` runs WORD's bundle.
      const [own, whole] = await Promise.all([p.h([word, '--help']), p.h(['help', word])]);
      expect(own.code, word).toBe(0);
      expect(own.stdout, word).toBe(whole.stdout);
    }
  });

  it("hands a command its bundle does not hold over to the whole CLI (a word mapped wrongly is slower, never broken)", async () => {
    const p = await project();
    const id = await p.create('listed through the fallback');
    const words = readWords();
    // show's bundle defines `list` (same group) but holds only show's handler.
    const script = `process.argv = [process.argv[0], 'holon', 'list'];
const { main } = await import(${JSON.stringify(join(ROOT, 'dist/bundle', words.show))});
process.exitCode = await main(['list']);`;
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((res) =>
      execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: p.dir, env: { ...cleanEnv(), HOLON_AGENT: 'main' } }, (err, stdout, stderr) =>
        res({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(id);
    expect(r.stdout).toContain('listed through the fallback');
  });

  it('a cold frontier (no local/) in a home as `holon init` writes it does not load the yaml library: holon.yaml, AGENTS.md and the records are in holon\'s own subset', async () => {
    const p = await project();
    await p.create('first item');
    await p.create('second item', ['--priority', 'P1']);
    rmSync(join(p.dir, '.holon/local'), { recursive: true, force: true });
    const cold = await modulesLoaded(['frontier', '--json'], p.dir, { HOLON_AGENT: 'main' });
    expect(cold.filter((u) => u.endsWith('/dist/bundle/yaml.cjs') || u.includes('/node_modules/yaml/'))).toEqual([]);
    // The trace sees it where it is needed: the same setting as a hand-written flow map.
    const config = join(p.dir, '.holon/holon.yaml');
    const text = readFileSync(config, 'utf8');
    expect(text).toContain('shell:\n    probe: "true"');
    writeFileSync(config, text.replace('shell:\n    probe: "true"', 'shell: {probe: "true"}'));
    const flow = await modulesLoaded(['frontier', '--json'], p.dir, { HOLON_AGENT: 'main' });
    expect(flow.filter((u) => u.endsWith('/dist/bundle/yaml.cjs'))).toHaveLength(1);
  });

  it('show, progress, pick, wait and new start no child process and load neither child_process nor crypto (ids come from /dev/urandom) nor v8, nor, printing into a pipe, net or tty (no process.stdout); the trace does see them where they are used', async () => {
    const p = await project();
    const a = await p.create('first item');
    const b = await p.create('second item');
    await p.h(['show', a]); // holon.yaml parsed once into local/cache
    for (const args of [['show', a], ['progress', a, 'a note'], ['pick', b], ['wait', a, '--for', 'external:ci:run/1', '--reason', 'CI'], ['new', 'third item']]) {
      const loaded = await builtinsLoaded(args, p.dir);
      expect(loaded, args.join(' ')).toContain('fs');
      expect(loaded.filter((m) => ['child_process', 'crypto', 'net', 'tty', 'v8'].includes(m)), args.join(' ')).toEqual([]);
    }
    // The frontier hashes what it parses (graph-index.ts contentHash): the trace is not blind to crypto.
    // An evaluation turns V8's optimizer off through node's v8 binding, without loading node:v8 and the
    // streams it brings (runtime/compile-mode.ts); a reused answer does not hash.
    const evaluated = await builtinsLoaded(['frontier', '--json'], p.dir);
    expect(evaluated).toContain('crypto');
    expect(evaluated).not.toContain('v8');
    expect(await builtinsLoaded(['frontier', '--json'], p.dir)).not.toContain('crypto');
    // holon dash makes process.stdout (ink draws on it): its stream and the net module are loaded.
    expect(await builtinsLoaded(['dash', '--once'], p.dir)).toEqual(expect.arrayContaining(['net']));
  });

  it("runs under node's deprecation flags: --no-deprecation (process.noDeprecation read-only), --throw-deprecation", async () => {
    // holon reaches two of node's bindings (store/node-binding.ts): the light bundles and the whole
    // CLI (strict code, where an assignment to a read-only property throws) both take those flags.
    const p = await project();
    const a = await p.create('first item');
    for (const flags of ['--no-deprecation', '--throw-deprecation --pending-deprecation']) {
      const env = { NODE_OPTIONS: flags };
      const evaluated = await p.h(['frontier', '--json'], env);
      expect(evaluated.stderr, flags).toBe('');
      expect(JSON.parse(evaluated.stdout).counts, flags).toBeDefined();
      for (const args of [['show', a], ['dash', '--once']]) {
        const r = await p.h(args, env);
        expect(r.code, `${flags} ${args.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stderr, flags).toBe('');
      }
      await p.create('another item'); // so that the next frontier evaluates again
    }
  });
});
