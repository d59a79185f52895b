import { delegated, parseScope, SCOPE_FIX } from '../../core/decision-scope.js';
import { invalid, usage } from '../../core/errors.js';
import { normalizeDecisionScope } from '../../core/graph-fields.js';
import { withArticle } from '../../core/ids.js';
import { iso } from '../../core/time.js';
import { appendHistory } from '../../core/workitem.js';
import { readAgent } from '../../store/agents.js';
import type { Home } from '../../store/home.js';
import { mutateWork, readWorkFile } from '../../store/work-store.js';
import type { Ctx } from '../context.js';
import { out, printJson } from '../output.js';
import { targetItem } from '../work-args.js';

/**
 * Decisions need a person. An agent run (HOLON_ACTOR=agent:NAME) may decide only scopes its AGENTS.md
 * delegates (`authority: {decide: ["kind:granularity:key"]}`); every other actor is a person.
 */
export function assertAuthority(home: Home, actor: string, scopeText: string, verb = 'decide'): void {
  if (!actor.startsWith('agent:')) return;
  const name = actor.slice('agent:'.length);
  const scope = parseScope(scopeText);
  let list: string[] = [];
  try {
    const auth = readAgent(home, name).config.authority as { decide?: unknown } | undefined;
    list = Array.isArray(auth?.decide) ? auth!.decide.map(String) : [];
  } catch {
    list = [];
  }
  if ('error' in scope || !delegated(list, scope)) {
    throw invalid(
      `${actor} may not ${verb} ${scopeText}: decisions need operator authority`,
      `a person runs \`holon decide\`, or delegates the scope in agents/${name}/AGENTS.md (authority: {decide: ["${scopeText}"]})`,
    );
  }
}

export async function run(ctx: Ctx, args: string[], opts: { approve?: boolean; reject?: boolean; note?: string; json?: boolean }): Promise<void> {
  if (Boolean(opts.approve) === Boolean(opts.reject)) throw usage('say --approve or --reject (one of them)', 'holon decide GATE --approve [--note "why"]');
  const decision = opts.approve ? 'approved' : 'rejected';
  const home = ctx.home();
  const ref = targetItem(ctx, args[0]);
  const peek = readWorkFile(ref.file, ref.id).item;
  const ds = normalizeDecisionScope(peek.decision_scope);
  if (peek.class !== 'user_gate') {
    throw invalid(`${ref.id} is ${withArticle(peek.class)}, not a user_gate: only a gate carries a decision${peek.class === 'user_action' ? ' (a user_action never satisfies one)' : ''}`, 'decide the user_gate that covers the scope (see `holon frontier`, needs_decision)');
  }
  if (!ds || 'error' in parseScope(ds.scope)) throw invalid(`${ref.id} has no valid decision_scope`, `${SCOPE_FIX}; set it with holon edit ${ref.id} --decision-scope ...`);
  assertAuthority(home, ctx.actor, ds.scope);
  const at = iso(ctx.nowMs);
  const r = await mutateWork(home, ref, ctx.nowMs, (doc) => {
    const cur = normalizeDecisionScope(doc.item.decision_scope)!;
    if (cur.decision === decision && (opts.note == null || opts.note === cur.note)) return doc;
    const next = { scope: cur.scope, decision, decided_at: at, decided_by: ctx.actor, note: opts.note ?? null } as const;
    const item = {
      ...doc.item,
      status: 'done' as const,
      decision_scope: next,
      no_followup: doc.item.no_followup ?? 'a decision: the items it covers carry the work',
      delivery: { result: `${decision}${opts.note ? `: ${opts.note}` : ''}`, evidence: [`decided by ${ctx.actor} with holon decide at ${at}`], outstanding: [], completed_at: at, completed_by: ctx.actor },
    };
    return appendHistory({ ...doc, item }, { at, text: `${decision} ${cur.scope} by ${ctx.actor}${opts.note ? `: ${opts.note}` : ''}` });
  });
  if (opts.json) return printJson({ id: ref.id, scope: ds.scope, decision, changed: r.changed, decision_scope: r.doc.item.decision_scope, status: r.doc.item.status });
  out(`${ref.id}  ${decision} ${ds.scope}${r.changed ? '' : ' (already recorded; nothing changed)'}`);
}
