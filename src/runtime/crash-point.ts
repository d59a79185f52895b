/**
 * Crash tests: `HOLON_TEST_KILL_AT=timer-event` (or `admission`, `timer-cancel`, `item-done`) makes the process SIGKILL itself at
 * that point, so a test can prove a rerun repairs the half-done step without doing anything twice.
 */
export function crashPoint(name: string): void {
  if (process.env.HOLON_TEST_KILL_AT === name) process.kill(process.pid, 'SIGKILL');
}
