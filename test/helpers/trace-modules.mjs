// Preloaded with `node --import`: records every module URL the process loads (one per line) in the file
// named by $HOLON_TRACE_MODULES, through a resolve hook (no timing involved).
import { register } from 'node:module';

register('./trace-modules-hooks.mjs', import.meta.url, { data: { file: process.env.HOLON_TRACE_MODULES } });
