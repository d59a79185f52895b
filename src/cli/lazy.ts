import type { Command } from 'commander';
import { makeCtx, type Ctx } from './context.js';

/** A command handler: positional arguments and the command's own options. */
export type Handler = (ctx: Ctx, args: string[], opts: Record<string, any>) => Promise<void> | void;

/**
 * Wraps a handler module loaded only when its command runs, so `holon pick` never pays for the
 * HTTP server or the watcher. `pick` names the export (default `run`).
 */
export function lazy(load: () => Promise<Record<string, unknown>>, pick = 'run') {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const positional = (args.slice(0, -2) as Array<string | string[] | undefined>).flatMap((a) =>
      a === undefined ? [] : Array.isArray(a) ? a : [a],
    );
    const mod = await load();
    const handler = mod[pick] as Handler;
    await handler(makeCtx(cmd.optsWithGlobals()), positional, cmd.opts());
  };
}

/** Repeatable option collector: --evidence a --evidence b. */
export const collect = (value: string, prev: string[] = []) => [...prev, value];
/** Comma-separated or repeated list option: --depends-on a,b --depends-on c. */
export const list = (value: string, prev: string[] = []) => [...prev, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
