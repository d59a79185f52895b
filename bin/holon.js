#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

const code = await main(process.argv.slice(2));
// process.exit drops output still queued for a pipe (large --json): exit once stdout has drained.
if (process.stdout.writableLength > 0) process.stdout.once('drain', () => process.exit(code));
else process.exit(code);
