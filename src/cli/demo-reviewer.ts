import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openHome } from '../store/home.js';
import { listRuns } from '../store/runs.js';
import { until, type DemoShell } from './demo-script.js';
import { dim } from './output.js';
import { writeOut } from './stdout.js';

const BIN = fileURLToPath(new URL('../../bin/holon.js', import.meta.url));

/**
 * The scripted reviewer (seed 000) used as a `command` runner: it reads its WorkItem, records what it
 * finds with the holon commands, and waits or completes. Each branch is one "turn" of a model.
 */
const REVIEWER = String.raw`import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
const h = (...a) => execFileSync('holon', a, { encoding: 'utf8' }).trim();
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const id = process.env.HOLON_WORK_ITEM;
const prompt = readFileSync(0, 'utf8');
const item = JSON.parse(h('show', id, '--json'));
const say = (s) => console.log('reviewer on ' + item.title + ': ' + s);
const first = item.progress.length === 0;
if (item.title.includes('#101') && first) {
  h('progress', id, 'checked the authorization path; the export endpoint lacks a tenant permission check');
  h('evidence', id, 'review comment posted on the missing tenant check', '--commit', '3f9c2ab');
  h('on-return', id, 'query the latest commit, review the increment and the tenant check, then confirm CI');
  h('wait', id, '--for', 'external:github:acme/app#101', '--reason', "the author's revision", '--recheck', '2d');
  say('found a missing permission check; waiting for the author');
} else if (item.title.includes('#102') && first) {
  h('progress', id, 'read the grid contract; four invariants hold; starting the test suite');
  sleep(1500);
  const task = h('task', 'run', '--work', id, '--', 'sh', '-c', 'sleep 1; echo "42 passed"').split('\n')[0];
  h('wait', id, '--for', 'task:' + task, '--reason', 'the test suite on the reviewed commit');
  say('tests running as ' + task + '; waiting for them');
} else if (item.title.includes('#101')) {
  if (!prompt.includes('What woke you')) throw new Error('resumed without its wake in the prompt');
  h('progress', id, 'resumed from the record: rechecked the revision 9d2e1f0; the tenant check is in place');
  h('evidence', id, 'tenant check present on every export endpoint; CI green', '--commit', '9d2e1f0');
  h('complete', id, '--result', 'PR #101 approved at 9d2e1f0', '--no-followup', 'review delivered; merging is the author\'s call');
  say('rechecked the new commit and delivered the review');
} else {
  h('evidence', id, 'test suite: 42 passed on the reviewed commit', '--commit', 'a1b2c3d');
  h('complete', id, '--result', 'PR #102 approved', '--no-followup', 'review delivered');
  say('tests passed; delivered the review');
}
`;

export interface ReviewerDemoResult {
  home: string;
  items: { a: string; b: string };
  runs: Array<Record<string, any>>;
  watchLog: string;
  seconds: number;
}


/** The run records of the demo's home, oldest first (the store's own listing). */
function runRecords(home: string): Array<Record<string, any>> {
  return listRuns(openHome({ home, cwd: dirname(home), env: {} })) as unknown as Array<Record<string, any>>;
}


/** Starts `holon watch --listen 127.0.0.1:0` and resolves with its ingress address once it listens. */
async function startWatcher(sh: DemoShell, log: (line: string) => void): Promise<{ child: ChildProcess; address: string; text: () => string }> {
  const child = spawn(process.execPath, [BIN, 'watch', '--listen', '127.0.0.1:0'], { env: { ...sh.env, HOLON_HOME: sh.home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let partial = '';
  child.stderr!.on('data', (d: Buffer) => {
    text += d;
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const l of lines) log(l);
  });
  let address = '';
  await until('the watcher to listen', () => {
    if (child.exitCode !== null) throw new Error(`holon watch exited: ${text}`);
    address = /ingress listening on http:\/\/(\S+?)\/hooks/.exec(text)?.[1] ?? '';
    return Boolean(address);
  }, 15_000);
  return { child, address, text: () => text };
}

/**
 * Seed 000 played by a scripted reviewer under `holon watch`: two PRs as two WorkItems; #101 waits for
 * the author's revision while #102 runs its tests; the revision notice arrives through HTTP ingress
 * while #102's run is in flight, so #101 resumes after it, from its record; both are delivered.
 */
export async function playReviewer(sh: DemoShell): Promise<ReviewerDemoResult> {
  const started = Date.now();
  const root = dirname(sh.home);
  const show = (line: string) => sh.print && writeOut(`${dim('  watch |')} ${line}\n`);

  sh.say('A reviewer agent with a home, and a scripted runner standing in for the model.');
  sh.holon(['init', '--agent', 'reviewer']);
  writeFileSync(join(root, 'reviewer.mjs'), REVIEWER);
  const agentsMd = join(sh.home, 'agents/reviewer/AGENTS.md');
  writeFileSync(agentsMd, readFileSync(agentsMd, 'utf8').replace(/runner:\n(  .*\n)+/, 'runner:\n  preset: command\n  command: "node reviewer.mjs"\n'));

  sh.say('holon watch runs the agent only for a reason, one run at a time, and takes webhooks on loopback.');
  const w = await startWatcher(sh, show);
  try {
    const ingress = sh.json<{ url: string; token_id: string }>(['ingress', 'url']);
    if (sh.print) writeOut(`{"url": "${ingress.url.replace(/[^/]+$/, '<token: shown once, stored only as a hash>')}", "token_id": "${ingress.token_id}"}\n`);

    sh.say('Two PRs arrive: one WorkItem each. New work is a reason to run.');
    const a = sh.holon(['new', 'Review PR #101 (export API) and deliver a conclusion.', '--title', 'Review PR #101', '--action', 'review', '--priority', 'P1', '--accept', 'permission checks on every export endpoint']);
    const b = sh.holon(['new', 'Review PR #102 (grid contract) and deliver a conclusion.', '--title', 'Review PR #102', '--action', 'review', '--priority', 'P2']);

    await until('#101 to wait for the author and #102 to be under review', () => {
      const runs = runRecords(sh.home);
      return runs.some((r) => r.work_item === a && r.status !== 'running') && runs.some((r) => r.work_item === b && r.status === 'running');
    }, 30_000);

    sh.say("The author pushes a revision of #101; GitHub's webhook reaches the capability URL while #102's run is in flight.");
    const res = await fetch(ingress.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resource: 'external:github:acme/app#101', mode: 'message', payload: { action: 'synchronize', head: '9d2e1f0' } }),
    });
    const accepted = (await res.json()) as { event: string };
    if (res.status !== 202) throw new Error(`demo: ingress answered ${res.status}`);
    if (sh.print) writeOut(`${dim('$')} curl -X POST <url> -d '{"resource":"external:github:acme/app#101","mode":"message",...}'\n${res.status} ${JSON.stringify(accepted)}\n`);

    sh.say('#101 resumes after #102 stops (never two runs at once), from its record; #102 resumes when its tests finish.');
    await until('both reviews to be delivered', () => {
      const done = [a, b].map((id) => /^status: "?done"?$/m.test(readFileSync(join(sh.home, 'agents/reviewer/work', `${id}.md`), 'utf8')));
      return done.every(Boolean) && runRecords(sh.home).every((r) => r.status !== 'running');
    }, 45_000);
  } finally {
    w.child.kill('SIGTERM');
    await new Promise((r) => (w.child.exitCode !== null ? r(null) : w.child.once('exit', r)));
  }

  sh.say('What the scripted reviewer did in each run (from the run logs in .holon/local/runs/):');
  const runs = runRecords(sh.home);
  if (sh.print) {
    for (const r of runs) {
      const said = readFileSync(join(sh.home, 'local/runs', `${r.id}.log`), 'utf8').split('\n').filter((l) => l.startsWith('reviewer on '));
      writeOut(`  ${r.id} (${r.reasons.join('+')}): ${said.join('; ') || '(nothing)'}\n`);
    }
  }
  sh.say('Every run is recorded: why it ran, how it ended, what it changed.');
  sh.holon(['runs']);
  sh.say('#101 carries its whole story: progress, evidence on each commit, a History line per run, the delivery.');
  sh.holon(['show', sh.steps.find((s) => s.args[0] === 'new')!.stdout.trim()]);
  sh.holon(['check']);
  const ids = sh.steps.filter((s) => s.args[0] === 'new').map((s) => s.stdout.trim());
  return { home: sh.home, items: { a: ids[0], b: ids[1] }, runs, watchLog: w.text(), seconds: (Date.now() - started) / 1000 };
}
