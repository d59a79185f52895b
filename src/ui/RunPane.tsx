import { Box } from 'ink';
import type { RunView } from './view-model.js';
import { Line } from './Line.js';
import { Section } from './Section.js';

/** The live run (or the last one): wake reason, elapsed time, and its log's tail. */
export function RunPane({ run, title }: { run: RunView | null; title?: string }) {
  if (!run) return <Section title={title ?? 'run'}><Line dim>no runs yet (holon watch starts them)</Line></Section>;
  return (
    <Section title={`${title ?? (run.live ? 'live run' : 'last run')} ${run.id} on ${run.item} for ${run.reasons}: ${run.status}, ${run.elapsed}`}>
      <Box flexDirection="column">
        {run.log.length ? run.log.map((l, i) => <Line key={i} dim>{'  │ '}{l}</Line>) : <Line dim>  (log empty)</Line>}
      </Box>
    </Section>
  );
}
