import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { invalid, usage } from '../../core/errors.js';
import { iso } from '../../core/time.js';
import { CONTEXT_POLICIES, THREAD_RUNNERS, type ContextPolicy, type ThreadRecord, type ThreadRunner } from '../../core/threads.js';
import { globsOverlap, scopeProblem } from '../../core/write-scope.js';
import { closeThread, compactThread, executeCommand, registerCommand, startCommandInBackground, threadView } from '../../runtime/threads.js';
import { gitRoot } from '../../store/git-changes.js';
import { listThreads, locateThread, newThreadId, readThread, workdirOf, writeThread } from '../../store/threads.js';
import type { Ctx } from '../context.js';
import { note, out, printJson, table, truncate } from '../output.js';
import { workTarget } from '../work-args.js';
import { renderCommandResult, renderThread } from '../thread-render.js';

interface CreateOpts { role: string; runner?: string; command?: string; model?: string; scope?: string[]; tool?: string[]; contextPolicy?: string; work?: string; json?: boolean }

function checkScopes(globs: string[], flag: string): string[] {
  const out = globs.map((g) => g.trim());
  for (const g of out) {
    const problem = scopeProblem(g);
    if (problem) throw invalid(`${flag} ${JSON.stringify(g)}: ${problem.replace('write_scope', 'scope')}`, 'scopes are globs relative to the repository root, e.g. --scope "src/grid/**"');
  }
  return out;
}

export async function runCreate(ctx: Ctx, _args: string[], opts: CreateOpts): Promise<void> {
  const role = opts.role?.trim();
  if (!role) throw invalid('--role is empty', 'say what the thread is responsible for, e.g. --role "grid contract specialist"');
  const runner = (opts.runner ?? (opts.command ? 'command' : 'claude')) as ThreadRunner;
  if (!THREAD_RUNNERS.includes(runner)) throw usage(`--runner "${opts.runner}" is not a runner`, `use one of ${THREAD_RUNNERS.join(', ')}`);
  if (runner === 'command' && !opts.command?.trim()) throw invalid('--runner command needs --command CMD', 'e.g. --runner command --command "node child.mjs": it gets one JSON object on stdin and prints its CommandResult as JSON');
  const policy = (opts.contextPolicy ?? 'full') as ContextPolicy;
  if (!CONTEXT_POLICIES.includes(policy)) throw usage(`--context-policy "${opts.contextPolicy}" is not a context policy`, `use one of ${CONTEXT_POLICIES.join(', ')}`);
  const tools = (opts.tool ?? []).map((x) => x.trim()).filter(Boolean);
  const { agent, work_item } = workTarget(ctx, opts.work);
  const home = ctx.home();
  const now = iso(ctx.nowMs);
  const t: ThreadRecord = {
    id: newThreadId(), agent, role,
    policy: { runner, command: opts.command?.trim() || null, model: opts.model?.trim() || null, tools, scope: checkScopes(opts.scope ?? [], '--scope'), context_policy: policy },
    work_item, workdir: relative(home.root, gitRoot(home.root) ?? home.root) || '.', created_at: now, created_by: ctx.actor, state: 'idle', active_command: null,
    session_id: null, session: 1, checkpoint: null, command_count: 0, last_command: null, updated_at: now, closed_at: null, close_reason: null,
  };
  writeThread(home, t);
  if (opts.json) return printJson(t);
  out(t.id);
  note(`thread for "${role}" (${runner}${t.policy.scope.length ? `, scope ${t.policy.scope.join(' ')}` : ''}); send it a command: holon thread send ${t.id} --objective "..."`);
}

interface SendOpts { objective: string; scope?: string[]; constraint?: string[]; contextRef?: string[]; expect?: string; wait?: boolean; json?: boolean }

export async function runSend(ctx: Ctx, args: string[], opts: SendOpts): Promise<void> {
  const home = ctx.home();
  const ref = locateThread(home, args[0], preferredAgent(ctx));
  const objective = opts.objective?.trim();
  if (!objective) throw invalid('--objective is empty', 'say what the child must do, e.g. --objective "report the invariants of the grid contract"');
  const t = readThread(home, ref.agent, ref.id);
  const scope = checkScopes(opts.scope ?? [], '--scope');
  for (const g of scope) {
    if (t.policy.scope.length && !t.policy.scope.some((s) => globsOverlap(g, s))) {
      throw invalid(`--scope ${JSON.stringify(g)} lies outside thread ${t.id}'s write scope (${t.policy.scope.join(', ')})`, 'a command may narrow the thread\'s scope, never widen it: create another thread for other files');
    }
  }
  const refs = (opts.contextRef ?? []).map((x) => x.trim()).filter(Boolean);
  for (const r of refs) {
    if (!existsSync(resolve(workdirOf(home, t), r))) throw invalid(`--context-ref ${r}: no such file in ${workdirOf(home, t)}`, 'give a path relative to the checkout the thread works in');
  }
  const cmd = { objective, scope, constraints: (opts.constraint ?? []).map((x) => x.trim()).filter(Boolean), context_refs: refs, expected_result: opts.expect?.trim() || null };
  const { thread, command } = await registerCommand(home, ref.agent, ref.id, cmd, ctx.actor, ctx.nowMs);
  if (!opts.wait) {
    await startCommandInBackground(home, thread, command, ctx.nowMs);
    if (opts.json) return printJson({ thread: thread.id, command });
    out(command.id);
    note(`command ${command.seq} of ${thread.id} runs in the background; inspect: holon thread inspect ${thread.id}; park an item on it: holon wait ID --for thread:${thread.id} --reason "..."`);
    return;
  }
  const done = await executeCommand(home, ref.agent, ref.id, command.id);
  if (done.result?.status === 'failed') process.exitCode = 3;
  if (opts.json) return printJson({ thread: thread.id, command: done });
  out(renderCommandResult(done));
}

/** The agent whose threads come first when an id is looked up: --agent / $HOLON_AGENT, else the default. */
function preferredAgent(ctx: Ctx): string | undefined {
  try {
    return ctx.agent();
  } catch {
    return undefined;
  }
}

export function runInspect(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  const home = ctx.home();
  const ref = locateThread(home, args[0], preferredAgent(ctx));
  const view = threadView(home, readThread(home, ref.agent, ref.id));
  if (opts.json) return printJson(view);
  out(renderThread(view));
}

export function runList(ctx: Ctx, _args: string[], opts: { all?: boolean; json?: boolean }): void {
  const threads = listThreads(ctx.home()).filter((t) => opts.all || t.state !== 'closed');
  if (opts.json) return printJson({ threads });
  if (!threads.length) return out(opts.all ? 'no threads: holon thread create --role ...' : 'no open threads (closed ones with --all): holon thread create --role ...');
  out(table([['THREAD', 'STATE', 'AGENT', 'RUNNER', 'COMMANDS', 'ROLE'], ...threads.map((t) => [t.id, t.state === 'running' ? `running ${t.active_command}` : t.state, t.agent, t.policy.runner, String(t.command_count), truncate(t.role, 60)])]));
}

export async function runCompact(ctx: Ctx, args: string[], opts: { checkpoint?: string; json?: boolean }): Promise<void> {
  const home = ctx.home();
  const ref = locateThread(home, args[0], preferredAgent(ctx));
  if (opts.checkpoint !== undefined && !opts.checkpoint.trim()) throw invalid('--checkpoint is empty', 'say what the next session must know, or leave --checkpoint out to ask the child');
  const { thread, checkpoint } = await compactThread(home, ref.agent, ref.id, opts.checkpoint ?? null, ctx.nowMs);
  if (opts.json) return printJson({ thread, checkpoint });
  out(`${thread.id} compacted: checkpoint ${checkpoint.id} (by the ${checkpoint.written_by}); the next command starts session ${thread.session} from it`);
}

export async function runClose(ctx: Ctx, args: string[], opts: { reason?: string; json?: boolean }): Promise<void> {
  const home = ctx.home();
  const ref = locateThread(home, args[0], preferredAgent(ctx));
  const { thread, changed } = await closeThread(home, ref.agent, ref.id, opts.reason?.trim() || null, ctx.nowMs);
  if (opts.json) return printJson({ thread, changed });
  out(`${thread.id} closed${changed ? '' : ' (already)'}; its records stay in the home`);
}
