import { renderNoHome, renderPrime } from '../../core/prime.js';
import { prime } from '../../ops/prime.js';
import type { Ctx } from '../context.js';
import { printJson } from '../output.js';

/** `holon prime`: what a session starts with. Exit 0 in a home whatever its state, and outside one. */
export async function run(ctx: Ctx, _args: string[], opts: { json?: boolean }): Promise<void> {
  const r = await prime(ctx);
  if (opts.json) return printJson(r);
  process.stdout.write(r.home ? renderPrime(r) : renderNoHome(r.message));
}
