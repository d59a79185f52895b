import { Box } from 'ink';
import { Line } from './Line.js';
import { Section } from './Section.js';

/** An item's record file, from line `scroll`, `rows` lines of it. */
export function RecordPane({ title, lines, scroll, rows }: { title: string; lines: string[]; scroll: number; rows: number }) {
  const shown = lines.slice(scroll, scroll + rows);
  return (
    <Section title={`${title}  (lines ${lines.length ? scroll + 1 : 0}-${scroll + shown.length} of ${lines.length})`}>
      <Box flexDirection="column">
        {shown.map((l, i) => <Line key={scroll + i}>{l || ' '}</Line>)}
      </Box>
    </Section>
  );
}
