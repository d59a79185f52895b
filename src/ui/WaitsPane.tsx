import type { TimerRow, WaitRow } from './view-model.js';
import { Line } from './Line.js';
import { Section } from './Section.js';

/** Live waits with their countdowns, then the next timers. */
export function WaitsPane({ waits, timers, max = 6 }: { waits: WaitRow[]; timers: TimerRow[]; max?: number }) {
  return (
    <Section title={`waits ${waits.length} · next timers ${timers.length}`}>
      {waits.length || timers.length ? null : <Line dim>no live waits, no timers</Line>}
      {waits.slice(0, max).map((w) => (
        <Line key={`${w.item}/${w.id}`} color={w.status === 'triggered' ? 'yellow' : undefined}>
          {'  '}{w.item} {w.resource}  {w.countdown}  {w.reason}
        </Line>
      ))}
      {waits.length > max ? <Line dim>  … {waits.length - max} more</Line> : null}
      {timers.map((t) => (
        <Line key={t.id}>
          {'  '}timer {t.id}  {t.countdown}{t.every ? ` (every ${t.every})` : ''}  {t.work_item ?? ''} {t.summary}
        </Line>
      ))}
    </Section>
  );
}
