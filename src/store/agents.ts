import { join } from 'node:path';
import { parseMarkdownRecord, RecordParseError } from '../core/record-codec.js';
import { agentDir, type Home } from './home.js';
import { problemError } from './work-store.js';
import { readRecordText } from './record-file.js';

/** An agent's AGENTS.md: front matter (runner, capabilities, policy, authority) and its role text. */
export interface AgentProfile {
  name: string;
  file: string;
  config: Record<string, unknown>;
  role: string;
}

/** The fix shown for a malformed AGENTS.md: its own fields, not a WorkItem's. */
export const AGENTS_EXAMPLE = 'AGENTS.md starts with its front matter, e.g.:\n---\nagent: "reviewer"\nrunner: {preset: command, command: "./agent.sh"}\ncapabilities: ["shell"]\npolicy:\n  run_timeout: "30m"\nauthority:\n  decide: []\n---';

export function readAgent(home: Home, name: string): AgentProfile {
  const file = join(agentDir(home, name), 'AGENTS.md');
  let text: string;
  try {
    text = readRecordText(file);
  } catch (err) {
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
  if (!text.startsWith('---')) return { name, file, config: {}, role: text };
  try {
    const rec = parseMarkdownRecord(text, file, AGENTS_EXAMPLE);
    return { name, file, config: rec.data, role: rec.body };
  } catch (err) {
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
}
