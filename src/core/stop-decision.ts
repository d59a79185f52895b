import type { Wait, WorkItem } from './types.js';

/** What the Stop hook knows when an agent tries to end its turn. */
export interface StopInput {
  /** Claude Code sets it when the stop was already held back once this turn: never block again. */
  stopHookActive: boolean;
  /** Why there is no home or agent to check (outside a home, no agent resolves). */
  unavailable: string | null;
  agent: string | null;
  focusId: string | null;
  /** The focused item; null when there is no focus or it cannot be read. */
  item: Pick<WorkItem, 'id' | 'title' | 'status' | 'blocker' | 'delivery'> & { waits: Pick<Wait, 'status'>[] } | null;
}

export type StopVerdict = { block: false; why: string } | { block: true; reason: string };

/** The three honest exits, with the commands written out for this item. */
export function honestExits(id: string): string[] {
  return [
    `wait for something: holon wait ${id} --for external:RESOURCE --reason "what you wait for"  (or --for timer --in 2h, or --for operator)`,
    `block it with a recovery path: holon block ${id} --reason "what stops it" --recovery "what would unblock it"`,
    `complete it with evidence: holon complete ${id} --result "what was delivered" --evidence "what proves it" --no-followup "why nothing is left"  (or --successor ID)`,
  ];
}

/**
 * Whether to hold back the end of a turn: only when the focus is open and nothing says why the work
 * can stop here (no active wait, no blocker, no delivery). Everything else lets the stop through.
 */
export function stopDecision(s: StopInput): StopVerdict {
  if (s.stopHookActive) return { block: false, why: 'stop_hook_active: this stop was already held back once this turn' };
  if (s.unavailable) return { block: false, why: s.unavailable };
  if (!s.focusId) return { block: false, why: `agent "${s.agent}" has no focus` };
  const i = s.item;
  if (!i) return { block: false, why: `the focus ${s.focusId} could not be read` };
  if (i.status !== 'open') return { block: false, why: `the focus ${i.id} is ${i.status}` };
  if (i.delivery) return { block: false, why: `the focus ${i.id} has a delivery` };
  if (i.blocker) return { block: false, why: `the focus ${i.id} has a blocker` };
  if (i.waits.some((w) => w.status === 'active')) return { block: false, why: `the focus ${i.id} waits for something` };
  const exits = honestExits(i.id);
  return {
    block: true,
    reason: [
      `holon: your focus ${i.id} ("${i.title}") is open with no active wait, no blocker and no delivery: if this turn ends now, the work is left in limbo. Before you stop, take one honest exit for ${i.id}:`,
      ...exits.map((e, n) => `${n + 1}. ${e}`),
      `(If the work goes on later on its own terms: holon defer ${i.id} --until ISO --reason "why". With the holon MCP server, its wait, block, complete and defer tools do the same.)`,
    ].join('\n'),
  };
}
