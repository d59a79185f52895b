import { writeSync } from 'node:fs';

/**
 * HOLON_TRACE_INDEX=1: one stderr line per agent on how its files were listed, one on how the
 * frontier made its answer, and one per agent on what a cold load took from the machine's content
 * cache (tests, and a curious user). HOLON_TRACE_INDEX=time starts each line with the milliseconds
 * since the process started (where a command spends its time, without a profiler).
 */
export function trace(line: string): void {
  if (!process.env.HOLON_TRACE_INDEX) return;
  try {
    const at = process.env.HOLON_TRACE_INDEX === 'time' ? `${performance.now().toFixed(1)} ms ` : '';
    writeSync(2, `holon: index: ${at}${line}\n`);
  } catch {
    // Tracing only.
  }
}
