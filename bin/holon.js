#!/usr/bin/env node
// CommonJS (bin/package.json): node's ESM loader costs some 9 ms of cpu to start, a tenth of a bare
// node start, so the entry and the light commands' bundles are CommonJS; the whole CLI (ESM, split in
// chunks) is reached by import() only for the commands that need it.
const { existsSync, readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const argv = process.argv.slice(2);
const BUNDLE = join(__dirname, '../dist/bundle');
// The command word, whether it keeps V8's optimizer, and the version (src/cli/command-word.ts, src/version.ts).
let boot;
try {
  boot = require(join(BUNDLE, 'boot.cjs'));
} catch (err) {
  // Only boot.cjs itself missing: a module it needs that is gone is another fault, with its own stack.
  if (err?.code !== 'MODULE_NOT_FOUND' || existsSync(join(BUNDLE, 'boot.cjs'))) throw err;
  // A checkout that was never built (npm install builds it): say so, not a loader's stack.
  writeSync(2, `holon: not built: ${join(BUNDLE, 'boot.cjs')} is missing\n  fix: run \`npm install\` (or \`npm run build\`) in ${join(__dirname, '..')}\n`);
  process.exit(1);
}

// `holon --version` alone needs one constant, not the command tree (scripts and hooks run it to probe).
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  try {
    writeSync(1, `${boot.VERSION}\n`);
  } catch {
    // A reader that went away (EPIPE): nothing to say to it.
  }
  process.exit(0);
}

// The bundle is minified: a stack trace names the sources only through its source maps.
if (process.env.HOLON_DEBUG) process.setSourceMapsEnabled(true);

// A short command turns V8's optimizing compiler off before long work (src/runtime/compile-mode.ts);
// the long-running ones (watch, dash, mcp; by the command word, not any word of argv) keep it.
const optimizer = boot.keepsOptimizer(argv) || Boolean(process.env.HOLON_V8_OPT);
if (!optimizer) globalThis[Symbol.for('holon.short-command')] = 'short';

// A light command runs from its own bundle (scripts/bundle.mjs, "One more bundle per light command"):
// dist/bundle/words.json names it. Anything else, or a build without it, runs the whole CLI.
let entry = null;
let word = null;
try {
  word = boot.commandWord(argv);
  const words = JSON.parse(readFileSync(join(BUNDLE, 'words.json'), 'utf8'));
  if (word && Object.prototype.hasOwnProperty.call(words, word)) entry = join(BUNDLE, words[word]);
} catch {
  // No words.json: main.js serves every command.
}

// Node makes process.stdout on first use, at ~6-11 ms of cpu: holon prints through fs.writeSync
// (src/cli/stdout.ts), and only what needs the stream (watch, dash, mcp; Windows) makes it. This
// notes whether anything did, and gives the stream the handler for a reader that stops early
// (`holon frontier | head` is not an error).
const stdoutDescriptor = Object.getOwnPropertyDescriptor(process, 'stdout');
let stdoutMade = false;
Object.defineProperty(process, 'stdout', {
  configurable: true,
  enumerable: stdoutDescriptor.enumerable,
  get() {
    const stream = stdoutDescriptor.get.call(process);
    if (!stdoutMade) {
      stdoutMade = true;
      stream.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));
    }
    return stream;
  },
});

/** After the command, with its exit code: what the code cache wants to write (src/store/code-cache.ts). */
let loaded = null;

/** The bundle's exports: a light command's (CommonJS, with V8's code cache where it can), or the whole CLI's (ESM). */
function load() {
  if (entry) {
    try {
      loaded = boot.loadBundle(entry, word);
      return loaded ? loaded.exports : require(entry);
    } catch (err) {
      // A words.json whose file is gone (a copy cut short, two builds at once): the whole CLI serves it.
      if (err?.code !== 'MODULE_NOT_FOUND' || !String(err.message).includes(entry)) throw err;
    }
  }
  return import(require('node:url').pathToFileURL(join(BUNDLE, 'main.js')).href);
}

Promise.resolve(load())
  .then(({ main }) => main(argv))
  .then((code) => {
    if (loaded) loaded.done(code);
    // process.exit drops output still queued for a pipe (large --json): exit once stdout has drained.
    if (stdoutMade && process.stdout.writableLength > 0) process.stdout.once('drain', () => process.exit(code));
    else process.exit(code);
  })
  .catch((err) => {
    // As an uncaught error at the top level: its stack on stderr, exit 1 (main() reports what it expects itself).
    process.exitCode = 1;
    throw err;
  });
