#!/usr/bin/env node
// `holon --version` alone needs one constant, not the command tree (scripts and hooks run it to probe).
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { VERSION } = await import('../dist/version.js');
  try {
    (await import('node:fs')).writeSync(1, `${VERSION}\n`);
  } catch {
    // A reader that went away (EPIPE): nothing to say to it.
  }
  process.exit(0);
}
const { default: v8 } = await import('node:v8');

// The bundle is minified: a stack trace names the sources only through its source maps.
if (process.env.HOLON_DEBUG) process.setSourceMapsEnabled(true);

// A command runs for a fraction of a second: optimizing compilation costs more CPU than it saves.
// The long-running ones (watch, dash, mcp; by the command word, not any word of argv) keep it.
const { commandWord, keepsOptimizer } = await import('../dist/cli/command-word.js');
if (!keepsOptimizer(argv) && !process.env.HOLON_V8_OPT) v8.setFlagsFromString('--no-opt');

// A light command runs from its own bundle (scripts/bundle.mjs, "One more bundle per light command"):
// dist/bundle/words.json names it. Anything else, or a build without it, runs the whole CLI.
const { readFileSync } = await import('node:fs');
let entry = './main.js';
try {
  const word = commandWord(argv);
  const words = JSON.parse(readFileSync(new URL('../dist/bundle/words.json', import.meta.url), 'utf8'));
  if (word && Object.prototype.hasOwnProperty.call(words, word)) entry = `./${words[word]}`;
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

const load = (file) => import(new URL(`../dist/bundle/${file}`, import.meta.url).href);
let bundle;
try {
  bundle = await load(entry);
} catch (err) {
  // A words.json whose file is gone (a copy cut short, two builds at once): the whole CLI serves it.
  if (entry === './main.js' || err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
  bundle = await load('./main.js');
}
const { main } = bundle;
const code = await main(argv);
// process.exit drops output still queued for a pipe (large --json): exit once stdout has drained.
if (stdoutMade && process.stdout.writableLength > 0) process.stdout.once('drain', () => process.exit(code));
else process.exit(code);
