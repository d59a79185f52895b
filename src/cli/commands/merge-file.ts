import { readFileSync, writeFileSync } from 'node:fs';
import { EXIT, usage } from '../../core/errors.js';
import { mergeRecord } from '../../core/record-merge.js';
import type { Ctx } from '../context.js';
import { note, printJson } from '../output.js';

/**
 * git's merge driver (`merge.holon.driver = ... merge-file %O %A %B %P`): merges the three versions,
 * leaves the result in %A, exits 0 when clean and 5 when it wrote a conflict block.
 */
export function run(ctx: Ctx, args: string[], opts: { json?: boolean }): void {
  const [baseFile, oursFile, theirsFile, path] = args;
  if (!baseFile || !oursFile || !theirsFile) throw usage('merge-file needs three files', 'holon merge-file BASE OURS THEIRS [PATH] (git passes %O %A %B %P)');
  const read = (f: string) => readFileSync(f, 'utf8');
  const r = mergeRecord({ path: path ?? oursFile, base: read(baseFile), ours: read(oursFile), theirs: read(theirsFile), nowMs: ctx.nowMs });
  writeFileSync(oursFile, r.text);
  const where = path ?? oursFile;
  if (opts.json) printJson({ path: where, kind: r.kind, clean: !r.conflicts.length, conflicts: r.conflicts });
  for (const c of r.conflicts) note(`holon merge-file: ${where}:${c.line}: conflict: ${c.what}`);
  if (r.conflicts.length) process.exitCode = EXIT.conflict;
}
