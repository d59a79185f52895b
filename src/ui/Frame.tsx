import { Box } from 'ink';
import type { Mode } from './keymap.js';
import type { DashView } from './view-model.js';
import { AgentsPane } from './AgentsPane.js';
import { EventsPane } from './EventsPane.js';
import { FrontierPane } from './FrontierPane.js';
import { Header } from './Header.js';
import { HelpLine } from './HelpLine.js';
import { PromptLine } from './PromptLine.js';
import { RecordPane } from './RecordPane.js';
import { RunPane } from './RunPane.js';
import { WaitsPane } from './WaitsPane.js';

export interface FrameProps {
  view: DashView;
  mode: Mode;
  /** The open record (record mode). */
  record?: { title: string; lines: string[]; scroll: number } | null;
  prompt?: string | null;
  text?: string | null;
  message?: string | null;
  error?: boolean;
  width?: number;
  rows?: number;
  /** Fill exactly this many lines (the live screen), clipping the body and keeping the key line at the bottom. */
  height?: number;
}

/** One screen of the dashboard from plain data: the live app and the plain frame both draw this. */
export function Frame({ view, mode, record, prompt = null, text = null, message = null, error = false, width, rows = 40, height }: FrameProps) {
  const body =
    mode === 'record' && record ? (
      <RecordPane title={record.title} lines={record.lines} scroll={record.scroll} rows={Math.max(3, rows - 6)} />
    ) : mode === 'log' ? (
      <RunPane run={view.run} title="following run" />
    ) : (
      <>
        <FrontierPane agent={view.agent} channels={view.channels} maxPerChannel={rows < 30 ? 3 : 8} />
        <WaitsPane waits={view.waits} timers={view.timers} max={rows < 30 ? 3 : 6} />
        <RunPane run={view.run} />
        <EventsPane events={view.events} />
      </>
    );
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Box flexDirection="column" flexGrow={1} flexShrink={1} overflow="hidden">
        {/* Its natural height, cut at the bottom by the box above: squeezed lines would overlap. */}
        <Box flexDirection="column" flexShrink={0}>
          <Header view={view} />
          <AgentsPane agents={view.agents} />
          {body}
        </Box>
      </Box>
      <Box flexDirection="column" flexShrink={0} marginTop={1}>
        <PromptLine prompt={prompt} text={text} message={message} error={error} />
        <HelpLine mode={mode} />
      </Box>
    </Box>
  );
}
