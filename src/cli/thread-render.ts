import type { TokenUse } from '../core/runner-output.js';
import type { CommandRecord } from '../core/threads.js';
import type { threadView } from '../runtime/threads.js';

const tokens = (u: TokenUse | null) => (u ? `uncached ${u.uncached_input}, cache read ${u.cache_read}, cache write ${u.cache_write}, output ${u.output}` : 'not reported');

/** One command's result for a person: status, summary, files, validation, scope check, problems. */
export function renderCommandResult(c: CommandRecord): string {
  const r = c.result;
  const L = [`${c.id} (command ${c.seq}) ${c.status}${r ? `: ${r.status}` : ''}${r ? ` · ready for next: ${r.ready_for_next ? 'yes' : 'no'}` : ''}`];
  if (r) {
    L.push(`  ${r.summary}`);
    if (r.blocker) L.push(`  blocker: ${r.blocker}`);
    for (const [label, list] of [['read', r.files_read], ['changed', r.files_changed], ['validation', r.validation], ['discoveries', r.discoveries]] as const) {
      if (list?.length) L.push(`  ${label}: ${list.join(', ')}`);
    }
  }
  const s = c.scope_check;
  if (s?.outside_scope.length) L.push(`  OUTSIDE SCOPE (git): ${s.outside_scope.join(', ')}`);
  if (s?.unreported.length) L.push(`  changed but not reported (git): ${s.unreported.join(', ')}`);
  if (s && !s.checked) L.push(`  scope not checked: ${s.reason}`);
  for (const e of c.result_errors) L.push(`  problem: ${e}`);
  if (c.usage) L.push(`  tokens: ${tokens(c.usage)}`);
  return L.join('\n');
}

/** `holon thread inspect` as text. */
export function renderThread(v: ReturnType<typeof threadView>): string {
  const p = v.policy;
  const L = [
    `${v.id}  ${v.state}${v.active_command ? ` (running ${v.active_command.id})` : ''}  agent ${v.agent}${v.work_item ? ` · work ${v.work_item}` : ''}`,
    `role: ${v.role}`,
    `policy: runner ${p.runner}${p.command ? ` (${p.command})` : ''}${p.model ? ` · model ${p.model}` : ''} · tools ${p.tools.length ? p.tools.join(', ') : 'default'} · scope ${p.scope.length ? p.scope.join(', ') : 'any'} · context ${p.context_policy}`,
    `session ${v.session}${v.session_id ? ` (${v.session_id})` : ''} · ${v.commands.length} command(s) · ${v.compactions} compaction(s)${v.closed_at ? ` · closed ${v.closed_at}${v.close_reason ? ` (${v.close_reason})` : ''}` : ''}`,
    `tokens: ${v.commands.some((c) => c.usage) || v.checkpoint?.usage ? tokens(v.tokens.total) : 'not reported'}`,
  ];
  if (v.checkpoint) L.push(`checkpoint ${v.checkpoint.id} (by the ${v.checkpoint.written_by}, ${v.checkpoint.created_at}):`, ...v.checkpoint.text.split('\n').map((l) => `  ${l}`));
  if (v.commands.length) {
    L.push('commands:');
    for (const c of v.commands) L.push(`  ${c.seq}. ${c.id} s${c.session} ${c.status === 'finished' ? c.result?.status ?? '-' : c.status}: ${c.objective}`);
  }
  const last = v.commands.slice().reverse().find((c) => c.status !== 'running');
  if (last) L.push('last result:', renderCommandResult(last).split('\n').map((l) => `  ${l}`).join('\n'));
  return L.join('\n');
}
