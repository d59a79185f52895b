import { join } from 'node:path';
import { render, renderToString } from 'ink';
import { SCHEMA_VERSION } from '../cli/output.js';
import { decideGate } from '../ops/decide.js';
import { tellAgent } from '../ops/deliver-event.js';
import { readHomeSnapshot, readRecordText, type HomeSnapshot } from '../ops/home-snapshot.js';
import { reopen } from '../ops/lifecycle.js';
import { watchHome } from '../store/home-watcher.js';
import type { Home } from '../store/home.js';
import { locateWork } from '../store/work-store.js';
import { App, type DashActions } from './App.js';
import { Frame } from './Frame.js';
import { stripEscapes } from './sanitize.js';
import { ThemeContext } from './theme.js';
import { buildView } from './view-model.js';

export interface DashOptions {
  home: Home;
  /** Only this agent (--agent); else every agent of the home. */
  agent: string | null;
  /** The agent selected first when all are shown. */
  first: string | null;
  nowMs: number;
  cwd: string;
  actor: string;
  once: boolean;
  json: boolean;
  color: boolean;
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

/** Draws one frame as plain text (no colour, no cursor moves), `columns` wide. */
export function plainFrame(snap: HomeSnapshot, agent: string | null, nowMs: number, columns: number): string {
  const view = buildView(snap, { agent, item: null }, nowMs, { events: 10 });
  const text = renderToString(
    <ThemeContext.Provider value={{ color: false }}>
      <Frame view={view} mode="main" width={columns} rows={1000} />
    </ThemeContext.Provider>,
    { columns },
  );
  return stripEscapes(text).split('\n').map((l) => l.trimEnd()).join('\n');
}

function actionsFor(o: DashOptions, clock: () => number): DashActions {
  const { home, actor } = o;
  return {
    async decide(id, decision) {
      const r = await decideGate({ home, ref: locateWork(home, id), decision, actor, nowMs: clock() });
      return `${r.id} ${r.decision} ${r.scope} by ${actor}${r.changed ? '' : ' (already recorded; nothing changed)'}`;
    },
    async tell(agent, workItem, text) {
      const r = await tellAgent({ home, agent, work_item: workItem, text, actor, nowMs: clock(), via: 'dash:tell' });
      return `told ${agent}: event ${r.event.id}${r.admitted ? '' : ' queued for the next tick'}`;
    },
    async reopen(id) {
      // The same operation as `holon reopen`: its authority and budget rules apply to the dashboard too.
      const ref = locateWork(home, id);
      const ctx = { cwd: o.cwd, env: process.env, nowMs: clock(), actor, globals: {}, home: () => home, agent: () => ref.agent };
      const r = await reopen(ctx, ref, {});
      return r.changed ? `${id} reopened (revision ${r.item.revision})` : `${id} unchanged`;
    },
    record(id, agent) {
      const ref = locateWork(home, id, agent);
      return { title: `${id}  ${ref.file}`, text: readRecordText(ref.file) };
    },
  };
}

/** `holon dash`: the live view on a terminal, else one plain frame (or the view model with --json). */
export async function runDash(o: DashOptions): Promise<void> {
  const agents = o.agent ? [o.agent] : undefined;
  const started = Date.now();
  // HOLON_NOW fixes the start; the dashboard's clock then runs on from it.
  const clock = () => o.nowMs + (Date.now() - started);
  const load = () => readHomeSnapshot(o.home, { nowMs: clock(), cwd: o.cwd, agents });
  const snap = await load();
  const first = o.agent ?? o.first;
  if (o.json) {
    // schema_version first, as every --json output (printJson) has it.
    o.stdout.write(JSON.stringify({ schema_version: SCHEMA_VERSION, ...buildView(snap, { agent: first, item: null }, o.nowMs, { events: 10 }) }, null, 2) + '\n');
    return;
  }
  if (o.once || !o.stdout.isTTY || !o.stdin.isTTY) {
    const columns = o.stdout.columns || Number(process.env.COLUMNS) || 100;
    o.stdout.write(plainFrame(snap, first, o.nowMs, columns) + '\n');
    return;
  }
  const subscribe = async (onChange: () => void, onError: (err: Error) => void) => {
    const w = await watchHome(o.home, onChange, onError, { alsoLocal: [join(o.home.local, 'runs'), join(o.home.local, 'watch.pid')] });
    return () => w.close();
  };
  // The alternate screen, as full-screen programs do: quitting gives the terminal back as it was. Every
  // frame fills the screen, so ink redraws it whole and a resize (which reflows text) leaves no debris.
  o.stdout.write('\x1b[?1049h');
  const app = render(
    <ThemeContext.Provider value={{ color: o.color }}>
      <App initial={snap} load={load} subscribe={subscribe} actions={actionsFor(o, clock)} clock={clock} agent={first} />
    </ThemeContext.Provider>,
    { stdout: o.stdout, stdin: o.stdin, exitOnCtrlC: false },
  );
  // A terminal closed or a kill: leave the alternate screen all the same.
  const stop = () => app.unmount();
  process.once('SIGTERM', stop).once('SIGHUP', stop);
  try {
    await app.waitUntilExit();
  } finally {
    process.off('SIGTERM', stop).off('SIGHUP', stop);
    o.stdout.write('\x1b[?1049l');
  }
}
