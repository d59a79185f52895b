/**
 * One of node's own bindings, `process.binding(name)`: not a public API, used where it proves itself
 * (fast-stat.ts, runtime/compile-mode.ts). It is deprecated (DEP0111): a warning for some names, or
 * for all under --pending-deprecation, and a throw under --throw-deprecation. So it is reached with
 * deprecations muted for that one call. Under --no-deprecation they are muted already, and node makes
 * `process.noDeprecation` read-only (an assignment throws in strict code): it is left alone then.
 * Null when there is no such binding or it may not be reached (node's permission model).
 */
export function nodeBinding<T>(name: string): T | null {
  const quiet = process.noDeprecation === true;
  try {
    if (!quiet) process.noDeprecation = true;
    return (process as unknown as { binding(name: string): T }).binding(name) ?? null;
  } catch {
    return null;
  } finally {
    if (!quiet) process.noDeprecation = false;
  }
}
