import { withArticle } from '../core/ids.js';
import { delegated, parseScope, SCOPE_FIX } from '../core/decision-scope.js';
import { invalid } from '../core/errors.js';
import { normalizeDecisionScope } from '../core/graph-fields.js';
import { iso } from '../core/time.js';
import type { DecisionScope, Status } from '../core/types.js';
import { appendHistory } from '../core/workitem.js';
import { readAgent } from '../store/agents.js';
import type { Home } from '../store/home.js';
import { mutateWork, readWorkFile, type WorkRef } from '../store/work-store.js';

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

export interface DecideOptions {
  home: Home;
  ref: WorkRef;
  decision: 'approved' | 'rejected';
  note?: string | null;
  actor: string;
  nowMs: number;
}

export interface DecideResult {
  id: string;
  scope: string;
  decision: 'approved' | 'rejected';
  changed: boolean;
  decision_scope: DecisionScope | null;
  status: Status;
}

/** Records a decision on a user_gate (`holon decide`, the dashboard): the gate is done, its scope decided. */
export async function decideGate(o: DecideOptions): Promise<DecideResult> {
  const peek = readWorkFile(o.ref.file, o.ref.id).item;
  const ds = normalizeDecisionScope(peek.decision_scope);
  if (peek.class !== 'user_gate') {
    throw invalid(`${o.ref.id} is ${withArticle(peek.class)}, not a user_gate: only a gate carries a decision${peek.class === 'user_action' ? ' (a user_action never satisfies one)' : ''}`, 'decide the user_gate that covers the scope (see `holon frontier`, needs_decision)');
  }
  if (!ds || 'error' in parseScope(ds.scope)) throw invalid(`${o.ref.id} has no valid decision_scope`, `${SCOPE_FIX}; set it with holon edit ${o.ref.id} --decision-scope ...`);
  assertAuthority(o.home, o.actor, ds.scope);
  const at = iso(o.nowMs);
  const note = o.note ?? null;
  const r = await mutateWork(o.home, o.ref, o.nowMs, (doc) => {
    const cur = normalizeDecisionScope(doc.item.decision_scope)!;
    if (cur.decision === o.decision && (note == null || note === cur.note)) return doc;
    const next = { scope: cur.scope, decision: o.decision, decided_at: at, decided_by: o.actor, note } as const;
    const item = {
      ...doc.item,
      status: 'done' as const,
      decision_scope: next,
      no_followup: doc.item.no_followup ?? 'a decision: the items it covers carry the work',
      delivery: { result: `${o.decision}${note ? `: ${note}` : ''}`, evidence: [`decided by ${o.actor} with holon decide at ${at}`], outstanding: [], completed_at: at, completed_by: o.actor },
    };
    return appendHistory({ ...doc, item }, { at, text: `${o.decision} ${cur.scope} by ${o.actor}${note ? `: ${note}` : ''}` });
  });
  return { id: o.ref.id, scope: ds.scope, decision: o.decision, changed: r.changed, decision_scope: r.doc.item.decision_scope, status: r.doc.item.status };
}
