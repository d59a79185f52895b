import { CommanderError, type Command } from 'commander';
import { closeMatches } from '../core/ids.js';
import { HolonError, EXIT, usage, type ErrorKind } from '../core/errors.js';
import { printJson } from './output.js';
import { fsRefusal } from '../store/fs-errors.js';
import { buildProgram } from './program.js';
import { useStreams, writeErr } from './stdout.js';
import { keepsOptimizer } from './command-word.js';

/** The only place that turns errors into messages and exit codes. */
export async function main(argv: string[]): Promise<number> {
  // watch, dash and mcp run for days: their output must never block their event loop (stdout.ts).
  if (keepsOptimizer(argv)) useStreams();
  const program = buildProgram(argv);
  try {
    if (argv[0] === 'help' && argv.length > 1) checkHelpTopic(program, argv.slice(1));
    await program.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (err) {
    return report(err, wantsJson(argv));
  }
}

/** `holon help WORDS` for a command that does not exist is a usage error (commander would print the root help). */
function checkHelpTopic(program: Command, words: string[]): void {
  let cmd = program;
  for (const w of words) {
    if (w.startsWith('-')) return;
    const next = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!next) {
      const near = closeMatches(w, cmd.commands.map((c) => c.name()));
      throw usage(`unknown command "${[...words.slice(0, words.indexOf(w)), w].join(' ')}"`, near.length ? `did you mean ${near.map((n) => `holon help ${n}`).join(', ')}?` : 'see `holon --help` for the commands');
    }
    cmd = next;
  }
}

/** `--json` among the options (not after `--`, where the words belong to another command). */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** The `code` of a JSON error: the error's kind, in the snake_case every other JSON key uses. */
const CODES: Record<ErrorKind, string> = { ok: 'ok', unexpected: 'unexpected', usage: 'usage', invalid: 'invalid', notFound: 'not_found', conflict: 'conflict' };

interface Failure {
  kind: ErrorKind;
  message: string;
  fix: string | null;
  /** The human lines for stderr. */
  lines: string[];
}

function describe(err: unknown): Failure | null {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return null;
    const usageLine = (err as CommanderError & { usageLine?: string }).usageLine;
    const message = err.message.replace(/^error: /, '');
    return { kind: 'usage', message, fix: usageLine ?? null, lines: usageLine ? [`${usageLine}`, '(run with --help for details)'] : [] };
  }
  // A file-system refusal no layer below named (read-only, full, no permission) is still expected input.
  err = fsRefusal(err) ?? err;
  if (err instanceof HolonError) {
    const lines = [`holon: ${err.message}`];
    if (err.hint) lines.push(`  fix: ${err.hint.split('\n').join('\n       ')}`);
    return { kind: err.kind, message: err.message, fix: err.hint ?? null, lines };
  }
  const e = err as Error;
  const message = `unexpected error: ${e?.message ?? String(err)}`;
  const lines = [`holon: ${message}`, process.env.HOLON_DEBUG ? `${e?.stack}` : '  (set HOLON_DEBUG=1 for the stack trace, and please report it)'];
  return { kind: 'unexpected', message, fix: 'set HOLON_DEBUG=1 for the stack trace, and please report it', lines };
}

function report(err: unknown, json: boolean): number {
  const f = describe(err);
  if (!f) return 0;
  // Commander has already printed its own message to stderr; the rest is ours.
  for (const line of f.lines) writeErr(`${line}\n`);
  const exit_code = EXIT[f.kind];
  if (json) printJson({ error: { code: CODES[f.kind], exit_code, message: f.message, fix: f.fix } });
  return exit_code;
}
