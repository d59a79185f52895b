import { usage } from '../../core/errors.js';
import { startTask } from '../../runtime/tasks.js';
import { listTasks, locateTask, readTask, type TaskRecord } from '../../store/tasks.js';
import type { Ctx } from '../context.js';
import { note, out, printJson, table, truncate } from '../output.js';
import { workTarget } from '../work-args.js';

export async function runTaskRun(ctx: Ctx, args: string[], opts: { work?: string; json?: boolean }): Promise<void> {
  if (!args.length || !args[0]) throw usage('no command given', 'holon task run [--work ID] -- ./ci.sh --flag');
  const { agent, work_item: work } = workTarget(ctx, opts.work);
  const t = await startTask(ctx.home(), agent, work, args, ctx.cwd, ctx.nowMs);
  if (opts.json) return printJson(t);
  out(t.id);
  note(`started in the background: ${args.join(' ')}\nwait on it: holon wait ${work ?? 'ID'} --for task:${t.id} --reason "..."`);
}

const statusText = (t: TaskRecord) => (t.status === 'running' ? 'running' : t.status === 'lost' ? 'lost' : t.signal ? `killed ${t.signal}` : `exit ${t.exit_code}`);

export function runTaskList(ctx: Ctx, _args: string[], opts: { json?: boolean }): void {
  const tasks = listTasks(ctx.home());
  if (opts.json) return printJson({ tasks });
  if (!tasks.length) return out('no tasks on this machine: holon task run -- CMD');
  out(table([['HANDLE', 'STATUS', 'AGENT', 'WORK', 'STARTED', 'COMMAND'], ...tasks.map((t) => [t.id, statusText(t), t.agent, t.work_item ?? '-', t.started_at, truncate(t.command.join(' '), 60)])]));
}

export function runTaskShow(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  const home = ctx.home();
  const t = readTask(home, locateTask(home, args[0]));
  if (opts.json) return printJson(t);
  out(`${t.id}  ${statusText(t)}  ${t.command.join(' ')}`);
  out(`agent ${t.agent}${t.work_item ? ` · work ${t.work_item}` : ''} · started ${t.started_at}${t.ended_at ? ` · ended ${t.ended_at}` : ''} · log ${t.log}`);
  if (t.output_tail) out(`--- output tail ---\n${t.output_tail.replace(/\n$/, '')}`);
}
