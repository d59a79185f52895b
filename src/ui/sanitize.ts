/**
 * Text from outside (event payloads, run logs, record titles) may carry terminal escape sequences that
 * would move the cursor, retitle the window or hide text. These functions keep the printable text only.
 */

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC strings, other ESC sequences, then C0/C1 controls
// (tab and newline excepted) and bidirectional overrides, which can reorder what a person reads.
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g;
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
const STRING = /\x1b[PX^_][^\x1b]*(?:\x1b\\)?/g;
const ESC2 = /\x1b[ -/]*[0-~]/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** Strips escape sequences and control characters; keeps newlines, turns tabs into spaces. */
export function stripEscapes(text: string): string {
  return text.replace(CSI, '').replace(OSC, '').replace(STRING, '').replace(ESC2, '').replace(/\t/g, '  ').replace(/\r(?!\n)/g, '\n').replace(CONTROLS, '');
}

/** One line for a table cell: escapes stripped, line breaks shown as ⏎. */
export function oneLine(text: string): string {
  return stripEscapes(text).replace(/\r?\n/g, ' ⏎ ').trim();
}
