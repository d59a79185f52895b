import { readFileSync } from 'node:fs';

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When a process started (clock ticks since boot, /proc/PID/stat's 22nd field), or null where it cannot
 * be read (not Linux, gone). With its pid it names one process: a pid recorded by a process killed
 * outright may later be another's, and that one must not be taken for it (nor signalled).
 */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process recorded as `pid` (started at `start`, where recorded) still runs. */
export function sameProcess(pid: number, start: string | null | undefined): boolean {
  if (!pidAlive(pid)) return false;
  if (!start) return true;
  const now = processStart(pid);
  return now === null || now === start;
}
