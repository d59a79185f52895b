/**
 * Crash tests: `HOLON_TEST_KILL_AT=timer-event` (or `admission`, `timer-cancel`, `item-done`) makes the process SIGKILL itself at
 * that point, so a test can prove a rerun repairs the half-done step without doing anything twice.
 * `NAME@N` kills at the N-th time the process reaches the point (a crash mid-way through a batch, on any machine).
 */
const reached = new Map<string, number>();

export function crashPoint(name: string): void {
  const spec = process.env.HOLON_TEST_KILL_AT;
  if (!spec) return;
  const [at, nth] = spec.split('@');
  if (at !== name) return;
  const count = (reached.get(name) ?? 0) + 1;
  reached.set(name, count);
  if (count >= Number(nth ?? 1)) process.kill(process.pid, 'SIGKILL');
}
