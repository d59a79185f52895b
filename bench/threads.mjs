#!/usr/bin/env node
// Work threads: the same 3-command workflow (the RFC's grid-contract example) run three ways:
// fresh self-contained children, one persistent thread, and a persistent thread compacted after the
// second command. The child is a `command` runner that stands in for a model and reports SCRIPTED
// token use: a fixed system prefix, a session transcript that grows with every command, a prefix
// cache (what is identical to the previous request of the same session counts as cache read), and an
// exploration cost whenever a session knows nothing of the subsystem yet. The numbers compare holon's
// accounting of the three ways; they are not measurements of a real model.
// Usage: npm run build && node bench/threads.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, printTable } from './lib.mjs';

const CHILD = String.raw`
const fs = require('node:fs');
const SYSTEM = 2000, EXPLORE = 12000, REREAD = 3000, CHECKPOINT_OUT = 400;
// Output per step of the workflow (a report, a change, tests), the same whichever way it runs.
const outputFor = (objective) => (objective.startsWith('Read') ? 600 : objective.includes('tests') ? 800 : 900);
const tok = (v) => Math.ceil(JSON.stringify(v).length / 4);
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => {
  const req = JSON.parse(input);
  const key = 'session-' + req.thread.id + '-' + req.thread.session + '.json';
  const s = fs.existsSync(key) ? JSON.parse(fs.readFileSync(key, 'utf8')) : { transcript: 0, requests: 0, explored: false };
  const prefix = SYSTEM + s.transcript;
  const fresh = req.op === 'command' ? tok(req.command) + tok(req.thread.checkpoint ?? '') + tok(req.history) : 200;
  const explore = req.op !== 'command' || s.explored ? 0 : req.thread.checkpoint ? REREAD : EXPLORE;
  const cacheRead = s.requests ? prefix : 0;
  const uncached = prefix + fresh + explore - cacheRead;
  const output = req.op === 'compact' ? CHECKPOINT_OUT : outputFor(req.command.objective);
  fs.writeFileSync(key, JSON.stringify({ transcript: s.transcript + fresh + explore + output, requests: s.requests + 1, explored: true }));
  const usage = { uncached_input: uncached, cache_read: cacheRead, cache_write: uncached, output };
  if (req.op === 'compact') return console.log(JSON.stringify({ checkpoint: 'grid contract: four invariants; three fields added in src/grid/contract.ts; tests next', usage }));
  console.log(JSON.stringify({ status: 'completed', summary: 'scripted: ' + req.command.objective, files_changed: [], ready_for_next: true, usage }));
});
`;

const WORKFLOW = [
  'Read the current query/grid contract and report its invariants.',
  'Add only the three requested fields while preserving those invariants.',
  'Add focused contract tests for the new fields.',
];

const root = mkdtempSync(join(tmpdir(), 'holon-bench-threads-'));
const env = { ...process.env, NO_COLOR: '1' };
const holon = (cwd, args) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`holon ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return args.includes('--json') ? JSON.parse(r.stdout) : r.stdout.trim();
};

function setup(name) {
  const dir = join(root, name);
  spawnSync('mkdir', ['-p', dir]);
  execFileSync('git', ['init', '-q'], { cwd: dir });
  writeFileSync(join(dir, 'child.cjs'), CHILD);
  holon(dir, ['init', '--agent', 'parent']);
  return dir;
}

const create = (dir, policy = 'full') => holon(dir, ['thread', 'create', '--role', 'grid contract specialist', '--command', 'node child.cjs', '--scope', 'src/grid/**', '--context-policy', policy, '--json']).id;
const send = (dir, id, objective) => holon(dir, ['thread', 'send', id, '--objective', objective, '--wait', '--json']);
const totals = (dir, ids) => {
  const t = { uncached_input: 0, cache_read: 0, cache_write: 0, output: 0, compactions: 0 };
  for (const id of ids) {
    const v = holon(dir, ['thread', 'inspect', id, '--json']);
    for (const k of ['uncached_input', 'cache_read', 'cache_write', 'output']) t[k] += v.tokens.total[k];
    t.compactions += v.compactions;
  }
  return t;
};

const ways = {
  fresh(dir) {
    // A new self-contained child for every command: it knows nothing and explores each time.
    const ids = WORKFLOW.map((objective) => {
      const id = create(dir, 'none');
      send(dir, id, objective);
      return id;
    });
    return totals(dir, ids);
  },
  persistent(dir) {
    const id = create(dir);
    for (const objective of WORKFLOW) send(dir, id, objective);
    return totals(dir, [id]);
  },
  compacted(dir) {
    const id = create(dir);
    send(dir, id, WORKFLOW[0]);
    send(dir, id, WORKFLOW[1]);
    holon(dir, ['thread', 'compact', id, '--json']);
    send(dir, id, WORKFLOW[2]);
    return totals(dir, [id]);
  },
};

try {
  const rows = [['way', 'uncached in', 'cache read', 'cache write', 'output', 'all input', 'compactions', 'wall ms']];
  for (const [name, run] of Object.entries(ways)) {
    const dir = setup(name);
    const t0 = process.hrtime.bigint();
    const t = run(dir);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    rows.push([name, t.uncached_input, t.cache_read, t.cache_write, t.output, t.uncached_input + t.cache_read, t.compactions, ms.toFixed(0)]);
  }
  printTable('3-command workflow, scripted token use (a comparison of accounting, not of a real model)', rows);
  console.log('\n  fresh: one new thread per command (context policy none); persistent: one thread; compacted: one thread, compacted after command 2.');
  console.log('  wall ms is holon plus the scripted child: process starts and record writes, no model time.');
} finally {
  rmSync(root, { recursive: true, force: true });
}
