// Preloaded with `node --import`: records every module URL the process loads (one per line) in the file
// named by $HOLON_TRACE_MODULES: ES modules through a resolve hook, CommonJS ones (bin/holon.js and the
// light commands' bundles are CommonJS) through the CommonJS resolver. No timing involved.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';

const file = process.env.HOLON_TRACE_MODULES;
register('./trace-modules-hooks.mjs', import.meta.url, { data: { file } });
if (file) {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (...args) {
    const found = resolve.apply(this, args);
    if (isAbsolute(found)) appendFileSync(file, `${pathToFileURL(found).href}\n`);
    return found;
  };
}
