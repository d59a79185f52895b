#!/usr/bin/env node
// Build step after `tsc`: bundles the CLI (src/cli/main.ts) into dist/bundle/ with esbuild, so a command
// loads a handful of files instead of ~100 modules. Every `import()` of a command handler becomes its own
// chunk; heavy code (dash's ink/react, the MCP SDK, the watcher, sync) lives only in the chunks of the
// commands that use it. The yaml library is one more file, loaded on first use (see src/core/yaml-lib.ts).
//
// Writes:
//   dist/bundle/main.js, chunks, yaml.cjs  the code bin/holon.js runs
//   dist/bundle/chunks.json                 for each output file, the packages (or src/ui) it contains:
//                                           test/cli/dash.test.ts checks light commands load none of the heavy ones
//   dist/build-id.txt                       a hash of every input (src, package-lock.json, this script); the
//                                           frontier cache keys on it so a rebuilt holon never serves an old answer
// HOLON_METAFILE=FILE also writes esbuild's metafile (what each chunk holds, byte by byte) for a closer look.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/bundle');

function buildId() {
  const h = createHash('sha256');
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else h.update(`${relative(ROOT, p)}\0`).update(readFileSync(p)).update('\0');
    }
  };
  walk(join(ROOT, 'src'));
  for (const f of ['package-lock.json', 'scripts/bundle.mjs']) h.update(`${f}\0`).update(readFileSync(join(ROOT, f)));
  return h.digest('hex').slice(0, 16);
}

const id = buildId();
// The previous build's chunks are left in place: their names carry a content hash, and a running
// `holon watch` of that build may still import one of them lazily. Older ones are removed below.
mkdirSync(OUT, { recursive: true });
const previous = (() => {
  try {
    return Object.keys(JSON.parse(readFileSync(join(OUT, 'chunks.json'), 'utf8')));
  } catch {
    return [];
  }
})();

// Minified: a short command spends a fifth of its cpu compiling the code it loads, and minified code
// compiles about a fifth faster. The source maps beside it give the stack traces of HOLON_DEBUG=1 (bin/holon.js).
const common = { bundle: true, platform: 'node', target: 'node20', legalComments: 'none', logLevel: 'warning', minify: true, sourcemap: 'linked' };

// yaml as one CommonJS file: required synchronously on first use, like the package itself.
await build({ ...common, entryPoints: [join(ROOT, 'node_modules/yaml/dist/index.js')], format: 'cjs', outfile: join(OUT, 'yaml.cjs') });
// The index keeper, a worker thread of `holon watch` and `holon index`: src/runtime/index-keeper-host.ts
// starts it by this name, beside the chunk that holds the host.
await build({ ...common, entryPoints: { 'index-keeper': join(ROOT, 'src/runtime/index-keeper.ts') }, format: 'esm', outdir: OUT });

/**
 * Code splitting makes one chunk per set of `import()` targets that share a module: with every command
 * handler behind its own `import()`, a light command loaded 25-40 small chunks. So, in the bundle only:
 * - the light command handlers, and the small modules src/ imports lazily, become static imports: they
 *   are all in the entry chunk, which costs less to load than the separate files did;
 * - the heavy commands are reached through one `import()` of a virtual module that re-exports them all
 *   (one chunk, plus the code they share with the entry);
 * - the heavy packages stay behind their own `import()` (ink/react in run-dash, the MCP SDK in
 *   mcp/server, chokidar), so they load only in the commands that use them.
 */
const HEAVY_COMMANDS = ['watch', 'keep-index', 'dash', 'mcp', 'sync', 'demo', 'setup', 'thread', 'ingress', 'tick', 'task', 'init', 'check', 'capabilities', 'runs', 'explain', 'decide', 'merge-file', 'completion'];
const STAY_LAZY = /(^|\/)(ui\/run-dash|mcp\/server|runtime\/watch-sync)\.js$/;
const HUB = 'holon:heavy-commands';
const ident = (name) => name.replace(/-/g, '_');
/**
 * Node built-ins that cost milliseconds to load (child_process pulls in net, dgram and the streams;
 * crypto its ~20 modules, tty the net module) and that a command may not use at all: in the bundle they are stand-ins whose
 * functions require the real module on first call. src/ imports only functions from them (checked here).
 */
const LAZY_BUILTINS = ['child_process', 'crypto', 'os', 'http', 'tty', 'v8'];
/**
 * Lazy the same way, but for src/ only: node:module (yaml-lib's createRequire, on first use of the
 * yaml library), whose first load brings node's ESM loader and source maps, some 0.2 ms of a start.
 * A package keeps the real one (ink's stack-utils reads a property of it, which the stand-in lacks).
 */
const SRC_LAZY_BUILTINS = ['module'];
function lazyBuiltin(name) {
  const real = createRequire(import.meta.url)(name);
  const fns = Object.keys(real).filter((k) => /^[a-z]/.test(k) && typeof real[k] === 'function');
  return [
    // __holonNodeRequire (from the banner) is not `require`, so esbuild leaves the call alone.
    'let real;',
    `const load = () => (real ??= __holonNodeRequire('node:${name}'));`,
    ...fns.map((k) => `export function ${k}(...args) { return load().${k}(...args); }`),
    `export default new Proxy({}, { get: (_, key) => load()[key] });`,
  ].join('\n');
}

/** Resolves `names` (node:NAME or NAME) to their lazy stand-ins, for importers `when` accepts. */
function lazyBuiltins(b, names, when = () => true) {
  b.onResolve({ filter: new RegExp(`^(node:)?(${names.join('|')})$`) }, (args) => (when(args.importer) ? { path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' } : undefined));
  b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({ contents: lazyBuiltin(args.path), loader: 'js' }));
}

/**
 * The chunking plugin. With `only` (a set of command handler names), for one command's own bundle
 * (see the word bundles below): those handlers become static imports; any other command's handler
 * hands the whole command over to the split build, and the heavy modules that stay lazy are refused.
 */
const makeChunking = (only = null) => ({
  name: 'holon-chunking',
  setup(b) {
    lazyBuiltins(b, LAZY_BUILTINS);
    lazyBuiltins(b, SRC_LAZY_BUILTINS, (importer) => importer.startsWith(join(ROOT, 'src/')));
    b.onResolve({ filter: /^holon:heavy-commands$/ }, () => ({ path: HUB, namespace: 'holon' }));
    b.onLoad({ filter: /.*/, namespace: 'holon' }, () => ({
      contents: HEAVY_COMMANDS.map((n) => `export * as ${ident(n)} from ${JSON.stringify(join(ROOT, `src/cli/commands/${n}.ts`))};`).join('\n'),
      loader: 'ts',
      resolveDir: ROOT,
    }));
    b.onLoad({ filter: /[\\/]src[\\/].*\.tsx?$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      // The stand-ins export only functions: a class or constant imported from one would be undefined.
      for (const m of text.matchAll(new RegExp(`^import ([^;]*) from 'node:(${[...LAZY_BUILTINS, ...SRC_LAZY_BUILTINS].join('|')})';`, 'gm'))) {
        const names = /^\{([^}]*)\}$/.exec(m[1].trim())?.[1].split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type ')) ?? [];
        const bad = names.filter((n) => !/^[a-z]\w*$/.test(n.split(/\s+as\s+/)[0]));
        if (!/^\{/.test(m[1].trim()) || bad.length) throw new Error(`${relative(ROOT, args.path)}: import { functions } from 'node:${m[2]}' only (lazy in the bundle, see LAZY_BUILTINS): ${m[0]}`);
      }
      const imports = [];
      const contents = text.replace(/import\('(\.{1,2}\/[\w./-]+\.js)'\)/g, (all, path) => {
        const cmd = /(?:^|\/)commands\/([\w-]+)\.js$/.exec(path)?.[1];
        // A command bundle never reaches another command's handler unless wordHandlers() mapped a word
        // wrongly: then the whole CLI runs the command afresh (a handler is imported before it does
        // anything, so nothing has happened yet) and exits with its code, slower but right. The heavy
        // modules that stay lazy are reached only from inside heavy commands: there, refuse.
        if (only && cmd && !only.has(cmd)) return `__holonWholeCli().then((m) => m.main(process.argv.slice(2))).then((code) => process.exit(code))`;
        if (only && STAY_LAZY.test(path)) return `Promise.reject(new Error('internal: ${path} is not in the bundle of ${[...only].join(', ')}'))`;
        if (cmd && HEAVY_COMMANDS.includes(cmd)) return `import('${HUB}').then((m) => m.${ident(cmd)})`;
        if (STAY_LAZY.test(path)) return all;
        const local = `__lazy_${imports.length}`;
        imports.push(`import * as ${local} from '${path}';`);
        return `Promise.resolve(${local})`;
      });
      if (!imports.length && contents === text && !args.path.endsWith('yaml-lib.ts')) return undefined;
      let out = contents;
      if (args.path.endsWith(join('src', 'core', 'yaml-lib.ts'))) {
        // yaml-lib requires the one-file yaml next to the bundle instead of the package's ~60 modules.
        out = out.replace("createRequire(import.meta.url)('yaml')", "createRequire(import.meta.url)('./yaml.cjs')");
        if (out === contents) throw new Error(`${args.path}: the yaml require this build rewrites has changed`);
      }
      return { contents: `${imports.join('\n')}\n${out}`, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
});
const chunking = makeChunking();

/** signal-exit's `require('assert')` (ink's exit handler, in dash) gets scripts/shims/assert.cjs; every other importer keeps node's. */
const lightAssert = {
  name: 'light-assert',
  setup(b) {
    b.onResolve({ filter: /^assert$/ }, (args) => (/node_modules\/signal-exit\//.test(args.importer) ? { path: join(ROOT, 'scripts/shims/assert.cjs') } : undefined));
  },
};

const entryOptions = {
  ...common,
  outdir: OUT,
  format: 'esm',
  metafile: true,
  jsx: 'automatic',
  define: { __HOLON_BUILD_ID__: JSON.stringify(id) },
  // ink imports react-devtools-core only when DEV=true; it is not installed.
  external: ['react-devtools-core'],
  // CommonJS packages inside ESM chunks call require() for node built-ins.
  banner: { js: "import { createRequire as __holonRequire } from 'node:module'; const require = __holonRequire(import.meta.url), __holonNodeRequire = require;" },
};

const result = await build({
  ...entryOptions,
  entryPoints: { main: join(ROOT, 'src/cli/main.ts') },
  splitting: true,
  chunkNames: '[name]-[hash]',
  plugins: [chunking, lightAssert],
});

/**
 * The handler modules each top-level command word's definition imports, read from src/cli/defs/*.ts:
 * a top-level definition is a statement that starts with `program` (or `const x = program`) at the
 * first indent, and runs to the next one (its subcommands, `x.command(...)`, included).
 */
function wordHandlers() {
  const out = new Map();
  const dir = join(ROOT, 'src/cli/defs');
  for (const f of readdirSync(dir).sort()) {
    for (const part of readFileSync(join(dir, f), 'utf8').split(/^(?=  (?:const \w+ = )?program\b)/m).slice(1)) {
      const word = /\.command\('([\w-]+)'/.exec(part)?.[1];
      if (!word) continue;
      const handlers = out.get(word) ?? new Set();
      for (const m of part.matchAll(/import\('\.\.\/commands\/([\w-]+)\.js'\)/g)) handlers.add(m[1]);
      out.set(word, handlers);
    }
  }
  return out;
}

/**
 * One more bundle per light command (by the set of handlers its word uses: progress, evidence and
 * on-return share record's): the whole CLI entry with that command's code and nothing else, in one
 * file without shared chunks. `holon show` then compiles ~110 KB instead of the ~280 KB of every light
 * command in the split build's entry, and links one module instead of ten: about 25 ms of cpu less,
 * a fifth of a bare node start. dist/bundle/words.json maps each word to its file, for bin/holon.js;
 * any other word (and help, or no word) runs the split build (main.js). A word whose handlers include
 * a heavy command gets none: its bundle would have to load the other build's modules.
 */
const bySet = new Map();
for (const [word, handlers] of wordHandlers()) {
  if (!handlers.size || [...handlers].some((h) => HEAVY_COMMANDS.includes(h))) continue;
  const key = [...handlers].sort().join('+');
  bySet.set(key, [...(bySet.get(key) ?? []), word]);
}
// CommonJS, as bin/holon.js is: node's ESM loader costs some 9 ms of cpu to start (an empty .mjs
// against an empty .cjs), a tenth of a bare node start, on every command. import.meta.url becomes
// the file's URL, and the whole CLI (ESM, split in chunks) is still reached by import().
const cjsOptions = {
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // A getter: the first file URL a process makes costs some 0.2 ms, and most commands want none.
  define: { ...entryOptions.define, 'import.meta.url': '__holonImportMeta.url' },
  // __holonWholeCli: the split build's entry beside the bundle. Loaded with a code cache
  // (src/store/code-cache.ts), a bundle runs as a vm.Script, which cannot import() on Node 20: its
  // loader gives the module an import of its own.
  // __holonModuleClass: node's Module class, for boot.cjs (bootBuiltins below).
  banner: { js: "const __holonNodeRequire = require, __holonModuleClass = module.constructor, __holonImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } }, __holonWholeCli = () => (module.holonImport ?? ((s) => import(s)))('./main.js');" },
};
const wordResults = await Promise.all([...bySet].map(([key]) => build({
  ...entryOptions,
  ...cjsOptions,
  entryPoints: { [`cmd-${key.replace(/\+/g, '-')}`]: join(ROOT, 'src/cli/main.ts') },
  entryNames: '[name]-[hash]',
  // The one-file yaml beside the bundle (yaml-lib.ts requires it by this relative name).
  external: [...entryOptions.external, './yaml.cjs'],
  plugins: [makeChunking(new Set(key.split('+'))), lightAssert],
})));
// What bin/holon.js reads before any bundle (the command word, whether it keeps V8's optimizer, the
// version, the loader with a code cache), as one small CommonJS file.
/**
 * boot.cjs runs on every start, so it loads no module it can do without: node:module is the class
 * its own module was made by (the banner's __holonModuleClass; loading node:module costs some 0.2 ms),
 * and node:os is lazy (cache-dir.ts wants it only where $HOME is not set).
 */
const bootBuiltins = {
  name: 'boot-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?module$/ }, () => ({ path: 'module', namespace: 'boot-module' }));
    b.onLoad({ filter: /.*/, namespace: 'boot-module' }, () => ({ contents: 'module.exports = __holonModuleClass;', loader: 'js' }));
    lazyBuiltins(b, ['os']);
  },
};
const bootResult = await build({
  ...common,
  ...cjsOptions,
  plugins: [bootBuiltins],
  metafile: true,
  stdin: { contents: "export { commandWord, keepsOptimizer } from './src/cli/command-word.ts'; export { VERSION } from './src/version.ts'; export { loadBundle } from './src/store/code-cache.ts';", resolveDir: ROOT, loader: 'ts' },
  outfile: join(OUT, 'boot.cjs'),
  sourcemap: false,
});
const words = {};
[...bySet].forEach(([, ws], i) => {
  const file = Object.keys(wordResults[i].metafile.outputs).find((f) => f.endsWith('.cjs'));
  for (const w of ws) words[w] = relative(OUT, join(ROOT, file));
});
writeFileSync(join(OUT, 'words.json'), `${JSON.stringify(words, null, 1)}\n`);

const chunks = {};
for (const [file, out] of [result, ...wordResults, bootResult].flatMap((r) => Object.entries(r.metafile.outputs))) {
  const parts = new Set();
  for (const input of Object.keys(out.inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (pkg) parts.add(pkg[1]);
    else if (input.startsWith('src/ui/')) parts.add('src/ui');
  }
  chunks[relative(OUT, join(ROOT, file))] = [...parts].sort();
}
// Every build's outputs (the split CLI, each command's bundle, boot.cjs) in one metafile.
if (process.env.HOLON_METAFILE) {
  const all = [result, ...wordResults, bootResult].map((r) => r.metafile);
  writeFileSync(process.env.HOLON_METAFILE, JSON.stringify({ inputs: Object.assign({}, ...all.map((m) => m.inputs)), outputs: Object.assign({}, ...all.map((m) => m.outputs)) }));
}
writeFileSync(join(OUT, 'chunks.json'), `${JSON.stringify(chunks, null, 1)}\n`);
// Keep this build's and the previous build's files; anything older no running holon can still need.
const keep = new Set([...Object.keys(chunks), ...previous, 'chunks.json', 'words.json', 'yaml.cjs', 'index-keeper.js', 'index-keeper.js.map']);
for (const f of readdirSync(OUT)) if (!keep.has(f)) rmSync(join(OUT, f), { force: true });
writeFileSync(join(ROOT, 'dist/build-id.txt'), `${id}\n`);
