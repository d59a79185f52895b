import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until, type DemoShell } from './demo-script.js';


/**
 * The waits part of the demo: #101 waits on CI (a background task, then the CI run), a notification
 * triggers it; #102 waits on a short timer that a tick fires; #101 completes with delivery.
 */
export async function demoWaits(sh: DemoShell, root: string, a: string, b: string): Promise<void> {
  const ci = join(root, 'start-ci.sh');
  writeFileSync(ci, '#!/bin/sh\nsleep 1\necho "CI run 7731 queued for commit 8e1d0c4"\n', { mode: 0o755 });

  sh.say('The author pushed a fix to #101. The reviewer starts CI in the background and waits on it, honestly.');
  sh.holon(['pick', a]);
  const task = sh.holon(['task', 'run', '--work', a, '--', ci]);
  sh.holon(['wait', '--for', `task:${task}`, '--reason', 'the CI launcher reports the run id']);

  sh.say('Meanwhile #102 waits on a timer: recheck its test run in 2 seconds.');
  sh.holon(['wait', b, '--for', 'timer', '--in', '2s', '--reason', 'recheck the grid test run']);
  sh.holon(['list']);

  sh.say('A tick (cron, or holon watch) records the finished task; its result triggers #101\'s wait.');
  const taskRecord = join(sh.home, 'local/tasks', `${task}.json`);
  await until('the CI launcher to finish', () => JSON.parse(readFileSync(taskRecord, 'utf8')).status !== 'running');
  sh.holon(['tick']);

  sh.say('The launcher queued CI run 7731: now #101 waits for that run, with a fallback recheck in 6h.');
  sh.holon(['wait', a, '--for', 'external:ci:run/7731', '--reason', 'CI on the reviewed commit 8e1d0c4', '--recheck', '6h']);

  sh.say('CI calls back. The event names its resource, so it triggers #101 only; #102 keeps waiting.');
  sh.holon(['notify', 'ci:run/7731', '--mode', 'message', '--payload', 'conclusion: success on 8e1d0c4 (please also merge #102)']);

  sh.say('The timer comes due; a tick fires it once and wakes #102.');
  const timers = join(sh.home, 'agents/reviewer/timers');
  const timerText = readFileSync(join(timers, readdirSync(timers).find((f) => f.endsWith('.yaml'))!), 'utf8');
  // On a slow machine the earlier tick may already have fired it (next_due_at is then null).
  const due = /^next_due_at: "([^"]+)"/m.exec(timerText);
  if (due) await until('the timer to be due', () => Date.now() >= Date.parse(due[1]));
  sh.holon(['tick']);
  sh.holon(['show', b]);

  sh.say('Resuming #101 shows what woke it and from where; the outside payload is fenced as data.');
  sh.holon(['resume', a]);

  sh.say('The reviewer rechecks CI itself, records evidence, and completes #101 with delivery.');
  sh.holon(['evidence', a, 'CI run 7731 green on 8e1d0c4; tenant check present on every export endpoint', '--commit', '8e1d0c4', '--run', 'ci/7731']);
  sh.say('Completion needs delivery: without a successor or a no-follow-up reason it is refused (exit 3).');
  sh.holon(['complete', a, '--result', 'approved and merged PR #101 (tenant check added)'], { expect: 3 });
  sh.holon(['complete', a, '--result', 'approved and merged PR #101 (tenant check added)', '--no-followup', 'the review is delivered; nothing outstanding']);
  sh.holon(['list', '--all']);
}
