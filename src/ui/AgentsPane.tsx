import { Box } from 'ink';
import type { AgentRow } from './view-model.js';
import { Line } from './Line.js';

const STATE_COLOR = { running: 'green', idle: 'yellow', stopped: 'red' } as const;

/** One line per agent: state and why, focus, runs and tokens today. */
export function AgentsPane({ agents }: { agents: AgentRow[] }) {
  if (!agents.length) return <Line>no agents: holon agent add NAME</Line>;
  return (
    <Box flexDirection="column">
      {agents.map((a) => (
        <Line key={a.name} color={a.selected ? undefined : 'gray'}>
          {a.selected ? '▸ ' : '  '}
          <Line bold={a.selected} color={STATE_COLOR[a.state]}>{a.name}</Line>
          {'  '}{a.state_text}
          {'  focus '}{a.focus ? `${a.focus}${a.focus_title ? ` "${a.focus_title}"` : ''}` : '-'}
          {'  runs today '}{a.runs_today}{'  tokens '}{a.tokens_in}/{a.tokens_out}
        </Line>
      ))}
    </Box>
  );
}
