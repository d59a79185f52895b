#!/usr/bin/env node
import v8 from 'node:v8';

// A command runs for a fraction of a second: optimizing compilation costs more CPU than it saves.
// The long-running watch keeps it.
if (!process.argv.slice(2).includes('watch') && !process.env.HOLON_V8_OPT) v8.setFlagsFromString('--no-opt');

// A reader that stops early (`holon frontier | head`) is not an error.
process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));

const { main } = await import('../dist/bundle/main.js');
const code = await main(process.argv.slice(2));
// process.exit drops output still queued for a pipe (large --json): exit once stdout has drained.
if (process.stdout.writableLength > 0) process.stdout.once('drain', () => process.exit(code));
else process.exit(code);
