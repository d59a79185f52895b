import { HolonError } from '../core/errors.js';
import { graphFieldProblems } from '../core/graph-fields.js';
import type { WorkItem } from '../core/types.js';

/** Refuses a write whose graph fields are invalid: exit 3 naming the field, what is wrong and the fix. */
export function assertGraphFields(item: WorkItem, where: string): void {
  const problems = graphFieldProblems(item);
  if (!problems.length) return;
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more: ${problems.slice(1).map((p) => p.message).join('; ')})` : '';
  throw new HolonError('invalid', `${where}: ${first.field}: ${first.message}${more}`, { hint: first.fix, where: `${where} ${first.field}`, details: problems });
}
