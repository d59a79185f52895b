import { useApp, useInput, useStdout } from 'ink';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { HomeSnapshot } from '../ops/home-snapshot.js';
import { Frame } from './Frame.js';
import { oneLine, stripEscapes } from './sanitize.js';
import { actionFor, type Mode } from './keymap.js';
import { useHomeSnapshot, type Subscribe } from './use-home-snapshot.js';
import { useNow } from './use-now.js';
import { useTerminalSize } from './use-terminal-size.js';
import { buildView, moveAgent, moveItem, type Selection } from './view-model.js';

/** What a person may do from the dashboard; each returns the line to show, or throws a HolonError. */
export interface DashActions {
  decide(id: string, decision: 'approved' | 'rejected'): Promise<string>;
  tell(agent: string, workItem: string | null, text: string): Promise<string>;
  reopen(id: string): Promise<string>;
  /** The record file of an item: its title line and text. */
  record(id: string, agent: string): { title: string; text: string };
}

export interface AppProps {
  initial: HomeSnapshot;
  load: () => Promise<HomeSnapshot>;
  subscribe: Subscribe;
  actions: DashActions;
  clock: () => number;
  agent?: string | null;
}

type Pending = { action: 'approve' | 'reject' | 'reopen'; id: string } | null;

/** The live dashboard: the snapshot, the selection, the mode, and the keys. */
export function App({ initial, load, subscribe, actions, clock, agent = null }: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const size = useTerminalSize(stdout);
  const { snap, error: readError } = useHomeSnapshot(initial, load, subscribe);
  const now = useNow(clock);
  const [sel, setSel] = useState<Selection>({ agent, item: null });
  const [mode, setMode] = useState<Mode>('main');
  const [pending, setPending] = useState<Pending>(null);
  const [text, setText] = useState('');
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [record, setRecord] = useState<{ id: string; agent: string; title: string; lines: string[]; scroll: number } | null>(null);
  const view = useMemo(() => buildView(snap, sel, now, { logLines: mode === 'log' ? Math.max(5, size.rows - 8) : 6 }), [snap, sel, now, mode, size.rows]);

  // An open record follows its file: re-read whenever the home changed.
  useEffect(() => {
    if (!record) return;
    const r = readRecord(record.id, record.agent);
    setRecord((cur) => (cur && cur.id === record.id ? { ...cur, title: r.title, lines: r.text.split('\n') } : cur));
  }, [snap]); // eslint-disable-line react-hooks/exhaustive-deps

  // An item may be gone by the time its record is read (moved, renamed by hand): say so in the pane.
  const readRecord = (id: string, agent: string) => {
    try {
      const r = actions.record(id, agent);
      return { title: oneLine(r.title), text: stripEscapes(r.text) };
    } catch (err) {
      return { title: id, text: `(cannot read the record of ${id}: ${(err as Error).message})` };
    }
  };

  const act = (p: Promise<string>) =>
    p.then((t) => setMessage({ text: t, error: false }), (err: Error) => setMessage({ text: `refused: ${err.message}${(err as { hint?: string }).hint ? ` (${(err as { hint?: string }).hint})` : ''}`, error: true }));

  // ink calls the handler registered by the last effect, which may predate the frame a quick typist
  // reacts to: the handler reads the state of the latest render from here.
  const latest = useRef({ view, mode, pending, text });
  latest.current = { view, mode, pending, text };

  useInput((input, key) => {
    const { view, mode, pending, text } = latest.current;
    if (mode === 'tell' && !key.escape && !(key.ctrl && input === 'c')) {
      if (key.return) {
        const msg = text;
        setMode('main');
        setText('');
        if (view.agent) act(actions.tell(view.agent, view.selected?.id ?? null, msg));
      } else if (key.backspace || key.delete) setText((t) => t.slice(0, -1));
      else if (input && !key.ctrl && !key.meta) setText((t) => t + input.replace(/[\x00-\x1f\x7f]/g, ''));
      return;
    }
    const a = actionFor(mode, input, key);
    if (!a) return;
    const item = view.selected;
    switch (a) {
      case 'quit':
        return exit();
      case 'item-up':
      case 'item-down':
        // From the selection as updated so far: key repeats faster than frames still move one step each.
        return setSel((s) => ({ agent: view.agent, item: moveItem(view, a === 'item-up' ? -1 : 1, s.agent === view.agent && s.item && view.order.includes(s.item) ? s.item : view.selected?.id ?? null) }));
      case 'agent-next':
      case 'agent-prev':
        return setSel({ agent: moveAgent(view, a === 'agent-next' ? 1 : -1), item: null });
      case 'open-record': {
        if (!item || !view.agent) return setMessage({ text: 'no item selected', error: true });
        const r = readRecord(item.id, view.agent);
        setRecord({ id: item.id, agent: view.agent, title: r.title, lines: r.text.split('\n'), scroll: 0 });
        return setMode('record');
      }
      case 'follow-log':
        if (!view.run) return setMessage({ text: 'no run to follow yet', error: true });
        return setMode('log');
      case 'scroll-up':
      case 'scroll-down':
        return setRecord((r) => (r ? { ...r, scroll: Math.max(0, Math.min(r.lines.length - 1, r.scroll + (a === 'scroll-up' ? -1 : 1))) } : r));
      case 'close':
        setText('');
        return setMode('main');
      case 'approve':
      case 'reject':
        if (!item?.gate) return setMessage({ text: 'select a gate under "needs decision" to approve or reject it', error: true });
        setPending({ action: a, id: item.id });
        return setMode('confirm');
      case 'reopen':
        if (!item?.reopenable) return setMessage({ text: 'select a blocked or deferred item to reopen it', error: true });
        setPending({ action: 'reopen', id: item.id });
        return setMode('confirm');
      case 'tell':
        if (!view.agent) return;
        setMessage(null);
        return setMode('tell');
      case 'confirm-yes':
        if (pending) act(pending.action === 'reopen' ? actions.reopen(pending.id) : actions.decide(pending.id, pending.action === 'approve' ? 'approved' : 'rejected'));
        setPending(null);
        return setMode('main');
      case 'confirm-no':
        setPending(null);
        setMessage({ text: 'nothing changed', error: false });
        return setMode('main');
    }
  });

  const prompt =
    mode === 'confirm' && pending
      ? `${pending.action} ${pending.id}${pending.action === 'reopen' ? '' : ' as the operator'}? y/n`
      : mode === 'tell'
        ? `tell ${view.agent}${view.selected ? ` (about ${view.selected.id})` : ''}:`
        : null;
  const shown = readError ? { text: readError, error: true } : message;
  return (
    <Frame
      view={view}
      mode={mode}
      record={record}
      prompt={prompt}
      text={mode === 'tell' ? text : null}
      message={shown?.text ?? null}
      error={shown?.error}
      width={size.columns}
      rows={size.rows}
      height={size.rows}
    />
  );
}
