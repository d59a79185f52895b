import { writeSync } from 'node:fs';

/**
 * HOLON_TRACE_INDEX=1: one stderr line per agent on how its files were listed, one on how the
 * frontier made its answer, and one per agent on what a cold load took from the machine's content
 * cache (tests, and a curious user).
 */
export function trace(line: string): void {
  if (!process.env.HOLON_TRACE_INDEX) return;
  try {
    writeSync(2, `holon: index: ${line}\n`);
  } catch {
    // Tracing only.
  }
}
