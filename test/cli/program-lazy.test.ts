import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram, COMMAND_GROUPS } from '../../dist/cli/program.js';
import { holon, tempDir } from '../helpers/cli.js';

/** A command's tree as words: its options and, recursively, its subcommands with theirs. */
function shape(c: Command): unknown {
  return { name: c.name(), usage: c.usage(), description: c.description(), options: c.options.map((o) => o.flags), commands: c.commands.map(shape) };
}

describe('buildProgram(argv) defines only argv\'s command', () => {
  const full = buildProgram();
  const fullOf = (name: string) => full.commands.find((c) => c.name() === name);

  it('gives every listed command exactly the tree the full program gives it', () => {
    for (const name of Object.keys(COMMAND_GROUPS)) {
      const mine = buildProgram([name]).commands.find((c) => c.name() === name);
      expect(fullOf(name), `${name} is a command`).toBeDefined();
      expect(shape(mine!), name).toEqual(shape(fullOf(name)!));
    }
    // And nothing else but `completion` (the program's own).
    for (const name of ['pick', 'agent', 'wait', 'frontier']) expect(buildProgram([name]).commands.map((c) => c.name()), name).toEqual([name, 'completion']);
    // The global options come before the word; an unknown word, help or a bare option build the whole tree.
    expect(buildProgram(['--home', 'x', '--agent=a', 'show']).commands.length).toBeLessThan(full.commands.length);
    for (const argv of [['help', 'show'], ['--help'], ['shw'], [], ['--home', 'show']]) expect(buildProgram(argv).commands.length, argv.join(' ')).toBe(full.commands.length);
  });

  it('a mistyped command still gets its suggestion, and --version its answer', async () => {
    const dir = tempDir();
    const r = await holon(['shw'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/show/);
    expect((await holon(['--version'], { cwd: dir })).stdout).toBe(`${(await import('../../dist/version.js')).VERSION}\n`);
  });
});
