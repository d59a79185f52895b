import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { invalid, HolonError } from '../../core/errors.js';
import { checkNotify, MAX_PAYLOAD_BYTES } from '../../core/event-input.js';
import type { HolonEvent } from '../../core/types.js';
import { checkTell, deliverEvent, tellAgent } from '../../ops/deliver-event.js';
import { nearWaits } from '../../core/wait-matching.js';
import { loadAgentWork } from '../../store/work-index.js';
import { listAdmitted, listInbox } from '../../store/event-store.js';
import type { Ctx } from '../context.js';
import { note, out, printJson, table, truncate } from '../output.js';
import { workTarget } from '../work-args.js';

const READ_ERRORS: Record<string, string> = { ENOENT: 'no such file', EISDIR: 'it is a folder, not a file', EACCES: 'permission denied' };

/** Reads `--payload`: text, or @FILE (refused when unreadable or over the limit, before anything is written). */
function readPayload(ctx: Ctx, value: string | undefined): string | null {
  if (value == null) return null;
  if (!value.startsWith('@')) return value;
  const file = resolve(ctx.cwd, value.slice(1));
  try {
    const size = statSync(file).size;
    if (size > MAX_PAYLOAD_BYTES) throw invalid(`payload file ${file} is ${size} bytes; the limit is ${MAX_PAYLOAD_BYTES} (64 KiB)`, 'send a summary, or send the path as the payload');
    return readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof HolonError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code && code in READ_ERRORS ? `${READ_ERRORS[code]} (${code})` : code ?? (err as Error).message;
    throw invalid(`cannot read payload file ${file}: ${why}`, 'check the path after @ (relative to the current folder)');
  }
}

function report(ev: HolonEvent, admitted: boolean, json?: boolean): void {
  if (json) return printJson({ ...ev, admitted });
  out(ev.id);
  if (!admitted) return note(`queued for ${ev.agent}; the next \`holon tick\` (or holon watch) admits it`);
  const d = ev.disposition!;
  if (d.triggered.length) note(`triggered ${d.triggered.map((t) => `wait ${t.wait} of ${t.work_item}`).join(', ')}`);
  else if (d.joined?.length) note(`joined the pending wake of ${d.joined.map((t) => `wait ${t.wait} of ${t.work_item}`).join(', ')} (triggered earlier, not yet handled by a successful run)`);
  else note(`no active wait on ${ev.resource}${ev.work_item ? ` of ${ev.work_item}` : ''}: the event only nudged ${ev.agent}`);
}

export async function runNotify(ctx: Ctx, args: string[], opts: { work?: string; mode?: string; source?: string; payload?: string; json?: boolean }): Promise<void> {
  const payload = readPayload(ctx, opts.payload);
  const input = checkNotify({ resource: args[0] ?? '', mode: opts.mode ?? 'wake_hint', source: opts.source ?? 'external', payload });
  const { agent, work_item } = workTarget(ctx, opts.work);
  if (input.payload != null && input.mode === 'wake_hint') note('note: with --mode wake_hint the payload is kept in the event record but not shown to the agent; use --mode message to deliver it');
  const r = await deliverEvent(ctx.home(), agent, { ...input, work_item, provenance: `cli:notify by ${ctx.actor}` }, ctx.nowMs);
  report(r.event, r.admitted, opts.json);
  if (r.admitted && !r.event.disposition?.triggered.length) {
    for (const n of nearWaits(loadAgentWork(ctx.home(), agent).items, r.event.resource)) note(`hint: ${n.work_item} waits on ${n.key}, one character off; did you mean \`holon notify ${n.key}\`?`);
  }
  if (r.admitted && !r.event.disposition?.triggered.length) {
    for (const n of nearWaits(loadAgentWork(ctx.home(), agent).items, r.event.resource)) note(`hint: ${n.work_item} waits on ${n.key}, one character off; did you mean \`holon notify ${n.key}\`?`);
  }
}

export async function runTell(ctx: Ctx, args: string[], opts: { work?: string; json?: boolean }): Promise<void> {
  checkTell(ctx.actor, args.join(' '));
  const { agent, work_item } = workTarget(ctx, opts.work);
  const r = await tellAgent({ home: ctx.home(), agent, work_item, text: args.join(' '), actor: ctx.actor, nowMs: ctx.nowMs });
  report(r.event, r.admitted, opts.json);
}

export function runInbox(ctx: Ctx, _args: string[], opts: { all?: boolean; json?: boolean }): void {
  const home = ctx.home();
  const agent = ctx.agent();
  const queued = listInbox(home, agent);
  const admitted = opts.all ? listAdmitted(home, agent) : [];
  if (opts.json) return printJson({ agent, queued, admitted: opts.all ? admitted : undefined });
  const rows = [...queued, ...admitted];
  if (!rows.length) return out(`no queued events for ${agent}${opts.all ? '' : ' (--all shows admitted ones)'}`);
  out(table([
    ['ID', 'STATUS', 'SOURCE', 'MODE', 'RESOURCE', 'WORK', 'CREATED', 'DISPOSITION'],
    ...rows.map((e) => [e.id, e.status, e.source, e.mode, truncate(e.resource, 40), e.work_item ?? '-', e.created_at, e.disposition ? (e.disposition.triggered.length ? `triggered ${e.disposition.triggered.map((t) => t.wait).join(',')}` : e.disposition.joined?.length ? `joined ${e.disposition.joined.map((t) => t.wait).join(',')}` : 'nudged') : '-']),
  ]));
}
