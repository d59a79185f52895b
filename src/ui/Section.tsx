import { Box } from 'ink';
import type { ReactNode } from 'react';
import { Line } from './Line.js';

/** A titled block of lines. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Line bold color="cyan">{title}</Line>
      {children}
    </Box>
  );
}
