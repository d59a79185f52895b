/**
 * The command word of an argv: the first argument that is not a global option (--home/--agent and their
 * values). null when argv starts with another option (--help, -V) or is empty. Pure and dependency-free:
 * bin/holon.js loads it before the bundle to decide the V8 flags.
 */
export function commandWord(argv: readonly string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--home' || a === '--agent') i++;
    else if (a.startsWith('--home=') || a.startsWith('--agent=')) continue;
    else return a.startsWith('-') ? null : a;
  }
  return null;
}

/**
 * The commands that run for minutes or days (a server or a loop) and so gain from V8's optimizing
 * compiler; every other command ends in a fraction of a second and runs with --no-opt. The thread and
 * task supervisors are not here: runtime/threads.ts and runtime/tasks.ts start them as their own node
 * scripts (dist/runtime/*-supervisor.js), never through bin/holon.js, so they keep the optimizer anyway.
 */
export const LONG_RUNNING_COMMANDS: readonly string[] = ['watch', 'dash', 'mcp', 'index'];

/** Whether `holon <argv>` keeps the optimizer: decided by the command word only, never by a later word. */
export function keepsOptimizer(argv: readonly string[]): boolean {
  const word = commandWord(argv);
  return word !== null && LONG_RUNNING_COMMANDS.includes(word);
}
