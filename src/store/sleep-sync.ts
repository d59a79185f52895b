const cell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` (a synchronous retry's pause between two git calls or two writes). */
export function sleepSync(ms: number): void {
  Atomics.wait(cell, 0, 0, ms);
}
