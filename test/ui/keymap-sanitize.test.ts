import { describe, expect, it } from 'vitest';
import { actionFor, helpLine, KEYMAP, type KeyPress, type Mode } from '../../src/ui/keymap.js';
import { oneLine, stripEscapes } from '../../src/ui/sanitize.js';

describe('keymap', () => {
  const cases: Array<[Mode, string, KeyPress, string | null]> = [
    ['main', '', { downArrow: true }, 'item-down'],
    ['main', 'k', {}, 'item-up'],
    ['main', '', { tab: true }, 'agent-next'],
    ['main', '', { tab: true, shift: true }, 'agent-prev'],
    ['main', '', { return: true }, 'open-record'],
    ['main', 'f', {}, 'follow-log'],
    ['main', 'a', {}, 'approve'],
    ['main', 'x', {}, 'reject'],
    ['main', 't', {}, 'tell'],
    ['main', 'u', {}, 'reopen'],
    ['main', 'q', {}, 'quit'],
    ['main', 'c', { ctrl: true }, 'quit'],
    ['main', 'y', {}, null],
    ['record', '', { downArrow: true }, 'scroll-down'],
    ['record', '', { escape: true }, 'close'],
    ['log', 'f', {}, 'close'],
    ['confirm', 'y', {}, 'confirm-yes'],
    ['confirm', 'n', {}, 'confirm-no'],
    ['confirm', '', { escape: true }, 'confirm-no'],
    ['confirm', 'a', {}, null],
    ['confirm', 'q', {}, null],
    ['tell', 'q', {}, null],
    ['tell', 'a', {}, null],
    ['tell', '', { escape: true }, 'close'],
    ['tell', 'c', { ctrl: true }, 'quit'],
  ];
  for (const [mode, input, key, want] of cases) {
    it(`${mode}: ${JSON.stringify(input)} ${JSON.stringify(key)} -> ${want}`, () => expect(actionFor(mode, input, key)).toBe(want));
  }

  it('no key is bound twice in one mode', () => {
    const seen = new Set<string>();
    for (const b of KEYMAP) for (const m of b.modes) for (const k of b.keys) {
      const id = `${m}:${k}`;
      expect(seen.has(id), id).toBe(false);
      seen.add(id);
    }
  });

  it('the help line names every action of the mode that has a label', () => {
    expect(helpLine('main')).toBe('↑↓ item  ⇥ agent  ⏎ record  f follow log  a/x approve/reject gate  t tell agent  u reopen blocked  q quit');
    expect(helpLine('confirm')).toBe('y yes  n no');
    expect(helpLine('tell')).toBe('⏎ send  esc back');
  });
});

describe('stripEscapes', () => {
  const cases: Array<[string, string, string]> = [
    ['colours', '\x1b[1;31mred\x1b[0m', 'red'],
    ['window title (OSC, BEL)', 'a\x1b]0;pwned\x07b', 'ab'],
    ['hyperlink (OSC, ST)', '\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['clear screen and cursor moves', '\x1b[2J\x1b[H\x1b[10;5Hx', 'x'],
    ['DCS string', 'a\x1bPq#0;2;0;0;0\x1b\\b', 'ab'],
    ['two-byte escapes keep the text after them', '\x1bMkept\x1bc', 'kept'],
    ['C0 and C1 controls', 'a\x00b\x07c\x9bd\x7f', 'abcd'],
    ['bidi overrides', 'abc\u202edcba\u202c', 'abcdcba'],
    ['tabs and carriage returns', 'a\tb\rc\r\nd', 'a  b\nc\nd'],
    ['wide characters stay', '日本語 ✓', '日本語 ✓'],
  ];
  for (const [name, input, want] of cases) it(name, () => expect(stripEscapes(input)).toBe(want));

  it('oneLine joins lines with ⏎', () => expect(oneLine(' a\nb\x1b[0m\n')).toBe('a ⏎ b ⏎'));
});
