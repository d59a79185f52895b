import { viewOf, workItemJson } from '../../core/workitem.js';
import { newItem, type NewOptions as NewOpOptions } from '../../ops/new.js';
import type { Ctx } from '../context.js';
import { out, printJson } from '../output.js';
import { stdoutIsTTY, writeErr } from '../stdout.js';

export { blankItem } from '../../ops/new.js';

export type NewOptions = Omit<NewOpOptions, 'objective'> & { json?: boolean };

export async function run(ctx: Ctx, args: string[], opts: NewOptions): Promise<void> {
  const { doc, ref, agent, focus } = await newItem(ctx, { ...opts, objective: args.join(' ') });
  const item = doc.item;
  if (opts.json) return printJson({ ...workItemJson(viewOf(doc)), file: ref.file, focus });
  out(item.id);
  if (stdoutIsTTY()) writeErr(`created ${item.id} "${item.title}" for ${agent}${opts.pick ? ' (now the focus)' : ''}\n`);
}
