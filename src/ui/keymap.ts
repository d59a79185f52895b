/**
 * Every key of `holon dash`, in one table: the dispatcher and the help line both read it, so what the
 * help line says is what the keys do.
 */

export type Mode = 'main' | 'record' | 'log' | 'confirm' | 'tell';

export type Action =
  | 'item-up' | 'item-down' | 'agent-next' | 'agent-prev'
  | 'open-record' | 'follow-log' | 'approve' | 'reject' | 'tell' | 'reopen'
  | 'scroll-up' | 'scroll-down' | 'close'
  | 'confirm-yes' | 'confirm-no'
  | 'quit';

/** The subset of ink's Key that the map reads. */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  tab?: boolean;
  shift?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
}

export interface Binding {
  action: Action;
  modes: Mode[];
  /** Named keys (see KeyPress) or single characters. */
  keys: string[];
  /** Shown in the help line; bindings without a label are aliases. */
  label?: string;
  help?: string;
}

const MAIN: Mode[] = ['main'];
const PANES: Mode[] = ['record', 'log'];

export const KEYMAP: Binding[] = [
  { action: 'item-up', modes: MAIN, keys: ['up', 'k'], label: '↑↓', help: 'item' },
  { action: 'item-down', modes: MAIN, keys: ['down', 'j'] },
  { action: 'agent-next', modes: MAIN, keys: ['tab', 'right'], label: '⇥', help: 'agent' },
  { action: 'agent-prev', modes: MAIN, keys: ['shift-tab', 'left'] },
  { action: 'open-record', modes: MAIN, keys: ['return', 'o'], label: '⏎', help: 'record' },
  { action: 'follow-log', modes: MAIN, keys: ['f'], label: 'f', help: 'follow log' },
  { action: 'approve', modes: MAIN, keys: ['a'], label: 'a/x', help: 'approve/reject gate' },
  { action: 'reject', modes: MAIN, keys: ['x'] },
  { action: 'tell', modes: MAIN, keys: ['t'], label: 't', help: 'tell agent' },
  { action: 'reopen', modes: MAIN, keys: ['u'], label: 'u', help: 'reopen blocked' },
  { action: 'scroll-up', modes: ['record'], keys: ['up', 'k'], label: '↑↓', help: 'scroll' },
  { action: 'scroll-down', modes: ['record'], keys: ['down', 'j'] },
  { action: 'close', modes: [...PANES, 'tell'], keys: ['escape', 'return', 'o', 'f'], label: 'esc', help: 'back' },
  { action: 'confirm-yes', modes: ['confirm'], keys: ['y'], label: 'y', help: 'yes' },
  { action: 'confirm-no', modes: ['confirm'], keys: ['n', 'escape'], label: 'n', help: 'no' },
  { action: 'quit', modes: [...MAIN, ...PANES], keys: ['q', 'ctrl-c'], label: 'q', help: 'quit' },
  { action: 'quit', modes: ['confirm', 'tell'], keys: ['ctrl-c'] },
];

/** The name of a key press: a named key ("up", "shift-tab", "ctrl-c") or the typed character. */
export function keyName(input: string, key: KeyPress): string {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.tab) return key.shift ? 'shift-tab' : 'tab';
  if (key.return) return 'return';
  if (key.escape) return 'escape';
  if (key.ctrl) return `ctrl-${input}`;
  return input;
}

/** What a key does in a mode, or null (in `tell`, unbound keys are text). */
export function actionFor(mode: Mode, input: string, key: KeyPress): Action | null {
  const name = keyName(input, key);
  // In the text input, only escape and ctrl-c are commands; return sends (handled by the input).
  if (mode === 'tell' && name !== 'escape' && name !== 'ctrl-c') return null;
  return KEYMAP.find((b) => b.modes.includes(mode) && b.keys.includes(name))?.action ?? null;
}

/** The help line of a mode: "↑↓ item  ⇥ agent  ⏎ record ...". */
export function helpLine(mode: Mode): string {
  const parts = KEYMAP.filter((b) => b.label && b.modes.includes(mode)).map((b) => `${b.label} ${b.help}`);
  if (mode === 'tell') parts.unshift('⏎ send');
  return parts.join('  ');
}
