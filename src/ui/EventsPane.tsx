import { Box } from 'ink';
import type { EventRow } from './view-model.js';
import { Line } from './Line.js';
import { Section } from './Section.js';

/** Recent events, newest first, with source and provenance; outside payloads marked as untrusted data. */
export function EventsPane({ events }: { events: EventRow[] }) {
  return (
    <Section title="recent events">
      {events.length ? null : <Line dim>none yet</Line>}
      {events.map((e) => (
        <Box key={e.id} flexDirection="column">
          <Line>
            {'  '}{e.at}  {e.source}/{e.mode}  {e.resource}{e.work_item ? ` (${e.work_item})` : ''}  via {e.provenance}  {e.disposition}
          </Line>
          {e.payload != null ? (
            <Line color={e.untrusted ? 'red' : undefined} dim={e.untrusted}>
              {'      '}{e.untrusted ? 'untrusted data: ' : 'message: '}{JSON.stringify(e.payload)}
            </Line>
          ) : null}
        </Box>
      ))}
    </Section>
  );
}
