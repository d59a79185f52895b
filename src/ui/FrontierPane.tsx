import { Box } from 'ink';
import type { ChannelView } from './view-model.js';
import { Line } from './Line.js';
import { Section } from './Section.js';

const CHANNEL_COLOR: Record<string, string> = { runnable: 'green', needs_decision: 'magenta', needs_action: 'magenta', resume_candidates: 'yellow', waiting: 'blue', not_runnable: 'red' };

/** The selected agent's frontier by channel, each item with its reason code. */
export function FrontierPane({ agent, channels, maxPerChannel = 8 }: { agent: string | null; channels: ChannelView[]; maxPerChannel?: number }) {
  const shown = channels.filter((c) => c.items.length);
  return (
    <Section title={`frontier of ${agent ?? '-'}  ${channels.map((c) => `${c.title} ${c.count}`).join(' · ')}`}>
      {shown.length ? null : <Line dim>nothing open</Line>}
      {shown.map((c) => {
        // Keep the selected item visible when a channel is cut.
        const sel = c.items.findIndex((i) => i.selected);
        const start = sel >= maxPerChannel ? sel - maxPerChannel + 1 : 0;
        const items = c.items.slice(start, start + maxPerChannel);
        const more = c.items.length - items.length;
        return (
          <Box key={c.name} flexDirection="column">
            <Line color={CHANNEL_COLOR[c.name]}>{c.title}</Line>
            {items.map((i) => (
              <Line key={i.id} bold={i.selected}>
                {i.selected ? '▸ ' : '  '}{i.focus ? '*' : ' '}{i.id}  {i.priority ?? '--'}  {i.code}  {i.title}{i.detail && i.detail !== 'every check passed' ? ` — ${i.detail}` : ''}
              </Line>
            ))}
            {more > 0 ? <Line dim>    … {more} more</Line> : null}
          </Box>
        );
      })}
    </Section>
  );
}
