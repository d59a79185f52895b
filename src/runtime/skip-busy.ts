import { HolonError } from '../core/errors.js';

/**
 * Runs one record's step of a pass; a record that is busy (lock held too long), malformed or gone
 * is skipped, not fatal: the pass goes on with the others and the next pass retries it.
 */
export async function skipBusy<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HolonError && (err.kind === 'conflict' || err.kind === 'invalid' || err.kind === 'notFound')) return null;
    throw err;
  }
}
