import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';

describe('HOLON_TRACE_INDEX', () => {
  it('=1 says how the frontier was made; =time starts each line with the milliseconds since the process started', async () => {
    const p = await project();
    await p.h(['new', 'one thing']);
    const plain = await p.h(['frontier', '--json'], { HOLON_TRACE_INDEX: '1' });
    expect(plain.stderr).toMatch(/^holon: index: frontier: evaluated$/m);
    const timed = await p.h(['frontier', '--json'], { HOLON_TRACE_INDEX: 'time' });
    const lines = timed.stderr.trim().split('\n');
    expect(lines.some((l) => /^holon: index: \d+\.\d ms frontier: reused/.test(l)), timed.stderr).toBe(true);
    const at = lines.map((l) => Number(/^holon: index: (\d+\.\d) ms /.exec(l)?.[1]));
    expect(at.every((ms, i) => ms > 0 && (i === 0 || ms >= at[i - 1])), timed.stderr).toBe(true);
  });
});
