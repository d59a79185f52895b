#!/usr/bin/env node
// Installs the pinned real agent CLIs for the agent test tier (npm run test:agents) into a cache folder
// OUTSIDE the package, one folder per name@version: they are large (~1.2 GB together) and never a
// dependency of holon. Idempotent: a folder whose binary is already there is left alone.
//
//   HOLON_AGENT_CLIS=/some/dir   where to install (default ~/.cache/holon/agent-clis)
//
// Prints one line per CLI with the path of its binary. Exit 1 when an install fails.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CLIS, cliDir, cliBin } from './clis.mjs';

const root = process.env.HOLON_AGENT_CLIS || join(homedir(), '.cache', 'holon', 'agent-clis');

let failed = false;
for (const cli of AGENT_CLIS) {
  const dir = cliDir(root, cli);
  const bin = cliBin(root, cli);
  if (existsSync(bin) && existsSync(join(dir, '.installed'))) {
    console.log(`${cli.pkg}@${cli.version}: ${bin} (already installed)`);
    continue;
  }
  // Install beside the final folder, then rename: an interrupted install never looks complete.
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'holon-agent-cli', private: true }) + '\n');
  console.log(`${cli.pkg}@${cli.version}: installing into ${dir} ...`);
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${cli.pkg}@${cli.version}`], { cwd: tmp, stdio: 'inherit' });
    writeFileSync(join(tmp, '.installed'), `${cli.pkg}@${cli.version}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    console.log(`${cli.pkg}@${cli.version}: ${bin}`);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    console.error(`${cli.pkg}@${cli.version}: npm install failed: ${err.message}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
