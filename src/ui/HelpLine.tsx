import { helpLine, type Mode } from './keymap.js';
import { Line } from './Line.js';

/** The keys of the current mode, from the keymap. */
export function HelpLine({ mode }: { mode: Mode }) {
  return <Line dim>{helpLine(mode)}</Line>;
}
