import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoShell } from '../demo-script.js';
import { demoWaits } from '../demo-waits.js';
import { demoFrontier } from '../demo-frontier.js';
import type { Ctx } from '../context.js';
import { out, printJson } from '../output.js';

/**
 * The main job end to end on a temporary home, played by a scripted agent (no model, no network):
 * a reviewer with two PRs as two WorkItems, recording progress and evidence, switching focus,
 * and resuming the first one from its record.
 */
export async function run(ctx: Ctx, _args: string[], opts: { keep?: boolean; json?: boolean }): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'holon-demo-'));
  const home = join(root, '.holon');
  const env: NodeJS.ProcessEnv = { ...ctx.env, HOLON_AGENT: 'reviewer', NO_COLOR: ctx.env.NO_COLOR };
  delete env.HOLON_NOW;
  const sh = new DemoShell(home, env, !opts.json);
  const started = Date.now();
  try {
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
    const summary = { home, items: [a, b], steps: sh.steps.length, seconds: (Date.now() - started) / 1000 };
    if (opts.json) printJson(summary);
    else out(`\ndemo finished in ${summary.seconds.toFixed(1)}s (${summary.steps} holon commands)${opts.keep ? `; home kept at ${home}` : ''}`);
  } finally {
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
  }
}
