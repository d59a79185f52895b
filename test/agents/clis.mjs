// The pinned agent CLIs of the agent test tier and where install-clis.mjs puts them.
import { join } from 'node:path';

export const AGENT_CLIS = [
  { name: 'claude', pkg: '@anthropic-ai/claude-code', version: '2.1.332' },
  { name: 'codex', pkg: '@openai/codex', version: '0.171.0' },
];

export const cliDir = (root, cli) => join(root, `${cli.name}@${cli.version}`);
export const cliBin = (root, cli) => join(cliDir(root, cli), 'node_modules', '.bin', cli.name);
