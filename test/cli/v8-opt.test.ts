import { describe, expect, it } from 'vitest';
import { commandWord, keepsOptimizer } from '../../dist/cli/command-word.js';

describe('bin/holon.js keeps V8\'s optimizer only for long-running commands, by the command word', () => {
  it('keeps it for watch, dash and mcp, also after the global options', () => {
    expect(keepsOptimizer(['watch'])).toBe(true);
    expect(keepsOptimizer(['dash'])).toBe(true);
    expect(keepsOptimizer(['mcp'])).toBe(true);
    expect(keepsOptimizer(['--home', '/tmp/watch', '--agent', 'dash', 'watch', '--listen', '127.0.0.1:0'])).toBe(true);
    expect(keepsOptimizer(['--home=/x', 'mcp'])).toBe(true);
  });

  it('turns it off when "watch" is only a later word or an option value', () => {
    expect(keepsOptimizer(['new', 'watch logs'])).toBe(false);
    expect(keepsOptimizer(['new', 'watch'])).toBe(false);
    expect(keepsOptimizer(['--home', 'watch', 'frontier'])).toBe(false);
    expect(keepsOptimizer(['--agent', 'mcp', 'pick'])).toBe(false);
    expect(keepsOptimizer(['frontier', '--json'])).toBe(false);
    expect(keepsOptimizer(['--help', 'watch'])).toBe(false);
    expect(keepsOptimizer([])).toBe(false);
  });

  it('finds the command word after --home/--agent and their values', () => {
    expect(commandWord(['--home', 'h', '--agent=a', 'thread', 'send'])).toBe('thread');
    expect(commandWord(['-V'])).toBeNull();
  });
});
