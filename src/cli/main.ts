import { CommanderError } from 'commander';
import { HolonError, EXIT } from '../core/errors.js';
import { fsRefusal } from '../store/fs-errors.js';
import { buildProgram } from './program.js';

/** The only place that turns errors into messages and exit codes. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (err) {
    return report(err);
  }
}

function report(err: unknown): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    const usageLine = (err as CommanderError & { usageLine?: string }).usageLine;
    if (usageLine) process.stderr.write(`${usageLine}\n(run with --help for details)\n`);
    return EXIT.usage;
  }
  // A file-system refusal no layer below named (read-only, full, no permission) is still expected input.
  err = fsRefusal(err) ?? err;
  if (err instanceof HolonError) {
    process.stderr.write(`holon: ${err.message}\n`);
    if (err.hint) process.stderr.write(`  fix: ${err.hint.split('\n').join('\n       ')}\n`);
    return err.exitCode;
  }
  const e = err as Error;
  process.stderr.write(`holon: unexpected error: ${e?.message ?? String(err)}\n`);
  if (process.env.HOLON_DEBUG) process.stderr.write(`${e?.stack}\n`);
  else process.stderr.write('  (set HOLON_DEBUG=1 for the stack trace, and please report it)\n');
  return EXIT.unexpected;
}

