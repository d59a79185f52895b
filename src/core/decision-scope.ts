/**
 * Decision scopes: `kind:granularity:key`, e.g. `api_change:action:export-endpoint`.
 * Granularity orders scopes from narrow to wide; a gate covers a need of the same kind (or kind `*`)
 * whose granularity is the same or finer, when the keys are equal or the gate's key is `*`.
 */

export const GRANULARITIES = ['action', 'lane', 'goal', 'project', 'global'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export interface Scope {
  kind: string;
  granularity: Granularity;
  key: string;
}

const KIND = /^(\*|[A-Za-z0-9][\w.-]*)$/;
const KEY = /^\S+$/;

export const SCOPE_FIX = 'write it as kind:granularity:key, e.g. api_change:action:export-endpoint (granularity action, lane, goal, project or global; key * matches any)';

/** Parses a scope; returns the parts, or a sentence saying what is wrong. */
export function parseScope(text: string): Scope | { error: string } {
  const s = String(text ?? '').trim();
  const a = s.indexOf(':');
  const b = a === -1 ? -1 : s.indexOf(':', a + 1);
  if (a === -1 || b === -1) return { error: `decision scope "${s}" needs three parts` };
  const kind = s.slice(0, a);
  const granularity = s.slice(a + 1, b);
  const key = s.slice(b + 1);
  if (!KIND.test(kind)) return { error: `decision scope "${s}" has a bad kind "${kind}"` };
  if (!(GRANULARITIES as readonly string[]).includes(granularity)) return { error: `decision scope "${s}" has an unknown granularity "${granularity}"` };
  if (!key || !KEY.test(key)) return { error: `decision scope "${s}" has an empty or spaced key` };
  return { kind, granularity: granularity as Granularity, key };
}

export function isScope(p: Scope | { error: string }): p is Scope {
  return !('error' in p);
}

export const rank = (g: Granularity) => GRANULARITIES.indexOf(g);

/** Whether a decision on `wide` covers the need `narrow`. */
export function covers(wide: Scope, narrow: Scope): boolean {
  return (
    (wide.kind === '*' || wide.kind === narrow.kind) &&
    rank(wide.granularity) >= rank(narrow.granularity) &&
    (wide.key === '*' || wide.key === narrow.key)
  );
}

/** Whether any of the delegated scopes (AGENTS.md authority.decide) covers `scope`. */
export function delegated(delegations: string[], scope: Scope): boolean {
  return delegations.some((d) => {
    const p = parseScope(d);
    return isScope(p) && covers(p, scope);
  });
}

