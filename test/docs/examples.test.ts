// Every ```sh block of README.md and docs/**/*.md runs, so no example can drift from the binary.
//
// The convention (new docs are picked up automatically):
// - A block runs as one bash script (`set -e -o pipefail`) in a scratch git checkout, with `holon` on
//   PATH meaning this build, and no HOLON_* from the developer. Every command must succeed.
// - A block without `holon init` gets a home first: `holon init --agent reviewer`, an agent `bob`, and
//   three open items (the first one picked); the agents' runner is `true`; `./run-ci.sh` exists.
// - Placeholder ids are mapped: `w-gate` to the newest user_gate; any other `w-XXXX` that names no item
//   to the home's items in order of first mention (so `w-4f2a` and `w-5b7c` are two different items);
//   `k-XXXX` to the tasks in the order they were started.
// - `holon watch` without `--once` runs in the background (on a free port) until the block ends.
// - `<!-- doc-test: skip: REASON -->` on the line before the fence skips a block; keep it rare.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, tempDir } from '../helpers/cli.js';

interface Block {
  file: string;
  line: number;
  code: string;
  skip: string | null;
}

function docFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md')) out.push(join(dir, e.name));
    }
  };
  if (existsSync(join(ROOT, 'docs'))) walk(join(ROOT, 'docs'));
  return out;
}

export function shBlocks(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```sh') continue;
    let prev = i - 1;
    while (prev >= 0 && !lines[prev].trim()) prev--;
    const m = prev >= 0 ? /^<!--\s*doc-test:\s*skip:\s*(.*?)\s*-->$/.exec(lines[prev].trim()) : null;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    blocks.push({ file, line: i + 1, code: lines.slice(i + 1, end).join('\n'), skip: m ? m[1] : null });
    i = end;
  }
  return blocks;
}

/** The block with its placeholders mapped and its long-running watcher sent to the background. */
export function prepare(code: string): string {
  const fake: string[] = [];
  let text = code.replace(/\bw-gate\b/g, '$(doc_gate)');
  text = text.replace(/(?<![\w-])w-[0-9a-z]{4,8}\b/g, (id) => {
    if (!fake.includes(id)) fake.push(id);
    return `$(doc_item ${fake.indexOf(id) + 1})`;
  });
  const tasks: string[] = [];
  text = text.replace(/(?<![\w-])k-[0-9a-z]{4,8}\b/g, (id) => {
    if (!tasks.includes(id)) tasks.push(id);
    return `$(doc_task ${tasks.indexOf(id) + 1})`;
  });
  return text.replace(/^holon watch\b(?![^#\n]*--once)/gm, 'doc_watch');
}

const PREAMBLE = `set -e -o pipefail
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true' EXIT
ids() { holon list --all --every-agent --json | node -e 'const v=JSON.parse(require("fs").readFileSync(0));for(const i of v.items)console.log(i.class+" "+i.id)'; }
doc_item() { if [ -f .doc-items ]; then sed -n "$1p" .doc-items; else ids | grep -v '^user_gate' | sed -n "$1p" | cut -d' ' -f2; fi; }
doc_gate() { ids | grep '^user_gate' | tail -1 | cut -d' ' -f2; }
doc_task() { holon task list --json | node -e 'const v=JSON.parse(require("fs").readFileSync(0));const t=v.tasks.sort((a,b)=>a.started_at.localeCompare(b.started_at));console.log(t[process.argv[1]-1].id)' "$1"; }
doc_watch() {
  args=(); for a in "$@"; do [ "$a" = --listen ] && args+=(--listen 127.0.0.1:0) || args+=("$a"); done
  holon watch "\${args[@]}" > .doc-watch.log 2>&1 &
  for _ in $(seq 600); do grep -q watching .doc-watch.log && return 0; sleep 0.1; done
  cat .doc-watch.log; return 1
}
`;

function setupHome(dir: string, holon: string): string {
  return `${holon} init --agent reviewer >/dev/null
${holon} agent add bob >/dev/null
for a in reviewer bob; do node .doc-runner.cjs .holon/agents/$a/AGENTS.md; done
a=$(${holon} new "Review PR #101 and deliver a conclusion" --pick); b=$(${holon} new "Review PR #102"); c=$(${holon} new "Retire export API v1")
printf '%s\\n' "$a" "$b" "$c" > .doc-items
`;
}

function runBlock(b: Block): Promise<{ code: number | null; out: string }> {
  const dir = tempDir('holon-doc-');
  const bin = join(dir, '.doc-bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'holon'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'holon'), 0o755);
  // Sets an agent's runner to `true` (the same edit test/helpers/watch.ts setRunner makes).
  writeFileSync(join(dir, '.doc-runner.cjs'), String.raw`const fs = require('fs'); const f = process.argv[2];
fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/runner:\n(  .*\n)+/, 'runner: {preset: command, command: "true"}\n'));`);
  writeFileSync(join(dir, 'run-ci.sh'), '#!/bin/sh\necho "queued CI run 7731"\n');
  chmodSync(join(dir, 'run-ci.sh'), 0o755);
  const code = prepare(b.code);
  const setup = /^holon init\b/m.test(b.code) ? '' : setupHome(dir, 'holon');
  const script = `git init -q && git -c user.name=doc -c user.email=doc@test commit -q --allow-empty -m start\n${PREAMBLE}\n${setup}\n${code}\n`;
  writeFileSync(join(dir, '.doc-block.sh'), script);
  return new Promise((res) => {
    const env = { ...cleanEnv(), PATH: `${bin}:${process.env.PATH}` };
    const child = spawn('bash', ['.doc-block.sh'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (c) => res({ code: c, out }));
  });
}

const blocks = docFiles().flatMap((f) => shBlocks(f, readFileSync(f, 'utf8')));

describe('shell examples in README.md and docs/', () => {
  it('finds the blocks, and skips only with a stated reason (rarely)', () => {
    expect(blocks.length).toBeGreaterThan(3);
    for (const b of blocks.filter((x) => x.skip !== null)) expect(b.skip, `${b.file}:${b.line}`).toMatch(/\w{4,}/);
    expect(blocks.filter((b) => b.skip !== null).length).toBeLessThanOrEqual(Math.ceil(blocks.length / 3));
  });

  it('maps placeholders: fake ids by first mention, w-gate, k- handles, a background watcher', () => {
    const p = prepare('holon pick w-4f2a9c1k\nholon claim w-5b7c\nholon explain w-4f2a9c1k\nholon decide w-gate --approve\nholon wait --for task:k-8m2k1q\nholon watch --listen   # x\nholon watch --once --json');
    expect(p.split('\n')).toEqual([
      'holon pick $(doc_item 1)', 'holon claim $(doc_item 2)', 'holon explain $(doc_item 1)', 'holon decide $(doc_gate) --approve',
      'holon wait --for task:$(doc_task 1)', 'doc_watch --listen   # x', 'holon watch --once --json',
    ]);
  });

  it('is not a rubber stamp: the README\'s old `timer add --every` line (no --in/--at) fails the block', async () => {
    const r = await runBlock({ file: 'x.md', line: 1, code: 'holon list\nholon timer add --every 1d --work w-4f2a\nholon list', skip: null });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('exactly one of --in');
  }, 180_000);

  for (const b of blocks) {
    const name = `${relative(ROOT, b.file)}:${b.line}`;
    if (b.skip !== null) {
      it.skip(`${name} (${b.skip})`, () => undefined);
      continue;
    }
    it(`${name} runs`, async () => {
      const r = await runBlock(b);
      expect(r.code, `${name} failed:\n${prepare(b.code)}\n---\n${r.out}`).toBe(0);
    }, 180_000);
  }
});
