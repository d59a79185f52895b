import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invalid } from '../../core/errors.js';
import { DemoShell } from '../demo-script.js';
import { demoFrontier } from '../demo-frontier.js';
import { playReviewer } from '../demo-reviewer.js';
import { demoWaits } from '../demo-waits.js';
import type { Ctx } from '../context.js';
import { bold, out, printJson } from '../output.js';

/** The records by hand: two PRs, progress, evidence, focus switches, resume, then waits and the frontier. */
async function byHand(sh: DemoShell, root: string): Promise<void> {
  sh.say('A reviewer agent gets a home of its own.');
  sh.holon(['init', '--agent', 'reviewer']);

  sh.say('Two PRs arrive: each is one WorkItem with its own objective.');
  const a = sh.holon(['new', 'Review PR #101 (export API) and deliver a conclusion; merge if CI passes on the reviewed commit.', '--title', 'Review PR #101', '--action', 'review', '--priority', 'P1', '--accept', 'permission checks on every export endpoint', '--accept', 'CI green on the reviewed commit']);
  const b = sh.holon(['new', 'Review PR #102 (grid contract) and deliver a conclusion.', '--title', 'Review PR #102', '--action', 'review', '--priority', 'P2']);

  sh.say('The reviewer picks #101, finds a problem, and writes down where to resume.');
  sh.holon(['pick', a]);
  sh.holon(['progress', 'checked the authorization path; the export endpoint lacks a tenant permission check']);
  sh.holon(['evidence', 'review comment posted on the missing tenant check', '--commit', '3f9c2ab']);
  sh.holon(['on-return', 'query the latest commit, review the increment and the tenant check, then confirm CI']);

  sh.say('While #101 waits for the author, it switches to #102. Switching focus clears nothing.');
  sh.holon(['pick', b]);
  sh.holon(['progress', 'read the grid contract; four invariants hold; tests running']);
  sh.holon(['list']);

  sh.say('Later, in a new turn with an empty context, the reviewer resumes #101 from its record.');
  sh.holon(['resume', a]);

  await demoWaits(sh, root, a, b);
  demoFrontier(sh);

  sh.say('The home is plain files, valid for CI:');
  sh.holon(['check']);
}

const PARTS = {
  watch: { title: 'Part 1: the reviewer of two PRs under `holon watch`, resumed only for a reason', play: (sh: DemoShell) => playReviewer(sh) },
  'by-hand': { title: 'Part 2: the same records by hand: waits, a timer, delivery, and the frontier', play: (sh: DemoShell, root: string) => byHand(sh, root) },
} as const;
type PartName = keyof typeof PARTS;

/**
 * The main job end to end on temporary homes, played by a scripted agent (no model, no network).
 * Each part has a home of its own; `--only` runs one of them.
 */
export async function run(ctx: Ctx, _args: string[], opts: { keep?: boolean; json?: boolean; only?: string }): Promise<void> {
  if (opts.only && !(opts.only in PARTS)) throw invalid(`no demo part "${opts.only}"`, `use one of ${Object.keys(PARTS).join(', ')}`);
  const names = (opts.only ? [opts.only] : Object.keys(PARTS)) as PartName[];
  const started = Date.now();
  const summary: Array<{ part: string; home: string; steps: number; seconds: number }> = [];
  for (const name of names) {
    const root = mkdtempSync(join(tmpdir(), `holon-demo-${name}-`));
    const home = join(root, '.holon');
    const env: NodeJS.ProcessEnv = { ...ctx.env, HOLON_AGENT: 'reviewer' };
    for (const k of ['HOLON_NOW', 'HOLON_HOME', 'HOLON_ACTOR']) delete env[k];
    const sh = new DemoShell(home, env, !opts.json);
    const t = Date.now();
    if (!opts.json) out(`\n${bold('== ' + PARTS[name].title)}`);
    try {
      await PARTS[name].play(sh, root);
      summary.push({ part: name, home, steps: sh.steps.length, seconds: (Date.now() - t) / 1000 });
    } finally {
      if (!opts.keep) rmSync(root, { recursive: true, force: true });
    }
  }
  const seconds = (Date.now() - started) / 1000;
  if (opts.json) return printJson({ parts: summary, seconds });
  out(`\ndemo finished in ${seconds.toFixed(1)}s (${summary.reduce((n, p) => n + p.steps, 0)} holon commands)${opts.keep ? `; homes kept: ${summary.map((p) => p.home).join(', ')}` : ''}`);
}
