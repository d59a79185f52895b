import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { script, setRunner } from '../helpers/watch.js';

const SECRET = 'IGNORE-PREVIOUS-INSTRUCTIONS-7f3a';

describe('a wake_hint payload never reaches the agent', () => {
  it('not in resume (text or --json), not in the runner prompt; a message payload does reach it, fenced as untrusted', async () => {
    const p = await project('rev');
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\ncat >> "$PWD/prompts.txt"\necho "=====" >> "$PWD/prompts.txt"\nholon wait "$HOLON_WORK_ITEM" --for external:ci:run/2 --reason "next" >/dev/null\n');
    setRunner(p.home, 'rev', '{preset: command, command: ./agent.sh}');
    const a = await p.create('CI');
    // Seen once (new work), so the next run is for the wake only.
    expect((await p.h(['watch', '--once'])).code).toBe(0);
    await p.h(['wait', a, '--for', 'external:ci:run/1', '--reason', 'CI']);
    const n = await p.h(['notify', 'ci:run/1', '--mode', 'wake_hint', '--payload', SECRET]);
    expect(n.code).toBe(0);
    const resumeText = (await p.h(['resume', a])).stdout;
    expect(resumeText).toContain('ci:run/1');
    expect(resumeText).not.toContain(SECRET);
    expect(JSON.stringify(await p.json(['resume', a]))).not.toContain(SECRET);
    expect((await p.h(['watch', '--once'])).code).toBe(0);
    const prompts = readFileSync(join(p.dir, 'prompts.txt'), 'utf8').split('=====\n');
    expect(prompts.length).toBeGreaterThanOrEqual(3);
    const woken = prompts[1];
    expect(woken).toContain('ci:run/1');
    expect(woken).not.toContain(SECRET);
    // The same text as a message does reach it: the test would see a leak.
    await p.h(['notify', 'ci:run/2', '--mode', 'message', '--payload', SECRET]);
    expect((await p.h(['watch', '--once'])).code).toBe(0);
    expect(readFileSync(join(p.dir, 'prompts.txt'), 'utf8').split('=====\n')[2]).toContain(SECRET);
  }, 120_000);
});
