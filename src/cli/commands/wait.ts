import { invalid } from '../../core/errors.js';
import { waitKey } from '../../core/wait-matching.js';
import { checkWaitOptions, locateWait, settleWait, wait } from '../../ops/wait.js';
import { workItemJson } from '../../core/workitem.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';
import { targetItem } from '../work-args.js';

interface WaitOpts {
  for?: string;
  reason?: string;
  recheck?: string;
  in?: string;
  at?: string;
  cancel?: string;
  resolve?: string;
  json?: boolean;
}

export async function run(ctx: Ctx, args: string[], opts: WaitOpts): Promise<void> {
  ctx.home();
  if (opts.cancel && opts.resolve) throw invalid('give either --cancel or --resolve, not both', 'cancel an active wait, or resolve a triggered one: holon wait --cancel WAIT_ID');
  if ((opts.cancel || opts.resolve) && (opts.for || opts.in || opts.at || opts.recheck)) {
    throw invalid(`--for, --in, --at and --recheck register a new wait, not with ${opts.cancel ? '--cancel' : '--resolve'}`, 'run two commands: one to settle the old wait, one to register the new one');
  }
  if (opts.cancel || opts.resolve) {
    const waitId = (opts.cancel ?? opts.resolve)!;
    const ref = locateWait(ctx, waitId, args[0] ? () => targetItem(ctx, args[0]) : null);
    const r = await settleWait(ctx, ref, { waitId, how: opts.cancel ? 'cancel' : 'resolve' });
    if (opts.json) return printJson(r);
    return out(`${waitId} ${r.wait.status}${r.changed ? '' : ' (unchanged)'}`);
  }
  checkWaitOptions(opts);
  const ref = targetItem(ctx, args[0]);
  const r = await wait(ctx, ref, opts);
  for (const n of r.notes) note(n);
  if (!r.registered) {
    if ('result' in r) {
      // The result is already there: it is returned at once and nothing is registered.
      if (opts.json) return printJson({ registered: false, work_item: ref.id, result: r.result });
      const t = r.task;
      out(`${t.id} already ${t.status}: ${t.signal ? `killed by ${t.signal}` : `exit code ${t.exit_code}`} (nothing registered)`);
      if (t.output_tail) out(t.output_tail.replace(/\n$/, ''));
      return;
    }
    if ('travelled' in r) {
      const t = r.travelled;
      if (opts.json) return printJson({ registered: false, work_item: ref.id, result: t });
      return out(`${t.task} already ${t.status} on another machine: ${t.signal ? `killed by ${t.signal}` : `exit code ${t.exit_code}`} (nothing registered; event ${t.event})`);
    }
    if ('thread_result' in r) {
      const found = r.thread_result;
      if (opts.json) return printJson({ registered: false, work_item: ref.id, result: found });
      out(`${found.command} already ${found.status}: ${found.result?.status ?? '-'} (nothing registered)`);
      if (found.result) out(found.result.summary);
      return;
    }
    if (opts.json) return printJson({ registered: false, work_item: ref.id, timer: r.timer });
    return out(`${r.timer.id} already fired at ${r.timer.last_fired_at} (nothing registered)`);
  }
  const { wait: saved, timer } = r;
  if (opts.json) return printJson({ registered: true, work_item: ref.id, wait: saved, timer, item: workItemJson(r.item) });
  out(saved.id);
  note(`${ref.id} waits for ${waitKey(saved)}${timer?.next_due_at ? ` (due ${timer.next_due_at})` : ''}; recheck at ${saved.recheck_at}${saved.status !== 'active' ? `; already ${saved.status}` : ''}`);
}
