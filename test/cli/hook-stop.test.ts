import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, tempDir } from '../helpers/cli.js';

const NOW = { HOLON_NOW: '2026-11-30T06:00:00Z' };
const stopInput = (extra: Record<string, unknown> = {}) => JSON.stringify({ session_id: 's-1', transcript_path: '/tmp/t.jsonl', hook_event_name: 'Stop', stop_hook_active: false, ...extra });

describe('holon hook stop', () => {
  it('blocks an open focus with nothing to settle it, then lets it through once it waits, is blocked or done', async () => {
    const p = await project();
    const id = await p.create('Fix the parser', ['--pick'], NOW);
    const held = await p.h(['hook', 'stop'], NOW, stopInput());
    expect(held.code).toBe(0);
    const out = JSON.parse(held.stdout);
    expect(out.decision).toBe('block');
    expect(out.reason).toContain(id);
    expect(out.reason).toContain(`holon wait ${id} --for`);
    expect(out.reason).toContain(`holon block ${id} --reason`);
    expect(out.reason).toContain(`holon complete ${id} --result`);

    // Never twice in one turn: Claude Code sets stop_hook_active on the stop after a block.
    const again = await p.h(['hook', 'stop'], NOW, stopInput({ stop_hook_active: true }));
    expect(again).toMatchObject({ code: 0, stdout: '' });

    expect((await p.h(['wait', id, '--for', 'operator', '--reason', 'the operator picks the API shape'], NOW)).code).toBe(0);
    const waiting = await p.h(['hook', 'stop'], NOW, stopInput());
    expect(waiting).toMatchObject({ code: 0, stdout: '' });
    expect(waiting.stderr).toContain('waits for something');

    const waitId = (await p.json(['show', id], NOW)).waits[0].id;
    expect((await p.h(['wait', '--cancel', waitId], NOW)).code).toBe(0);
    expect(JSON.parse((await p.h(['hook', 'stop'], NOW, stopInput())).stdout).decision).toBe('block');
    expect((await p.h(['block', id, '--reason', 'no access', '--recovery', 'ask ops for a token'], NOW)).code).toBe(0);
    expect(await p.h(['hook', 'stop'], NOW, stopInput())).toMatchObject({ code: 0, stdout: '' });
    expect((await p.h(['reopen', id], NOW)).code).toBe(0);
    expect((await p.h(['complete', id, '--result', 'fixed', '--evidence', 'tests pass', '--no-followup', 'nothing left'], NOW)).code).toBe(0);
    const done = await p.h(['hook', 'stop'], NOW, stopInput());
    expect(done).toMatchObject({ code: 0, stdout: '' });
    expect(done.stderr).toContain('is done');
  });

  it('uses the cwd of the hook input to find the home', async () => {
    const p = await project();
    await p.create('Fix the parser', ['--pick'], NOW);
    const elsewhere = tempDir();
    const r = await holon(['hook', 'stop'], { cwd: elsewhere, env: NOW, input: stopInput({ cwd: p.dir }) });
    expect(JSON.parse(r.stdout).decision).toBe('block');
  });

  it('lets the stop through with no focus, outside a home, and on bad or empty input (saying why on stderr)', async () => {
    const p = await project();
    const nofocus = await p.h(['hook', 'stop'], NOW, stopInput());
    expect(nofocus).toMatchObject({ code: 0, stdout: '' });
    expect(nofocus.stderr).toContain('no focus');
    const outside = await holon(['hook', 'stop'], { cwd: tempDir(), input: stopInput() });
    expect(outside).toMatchObject({ code: 0, stdout: '' });
    expect(outside.stderr).toContain('no holon home');
    await p.create('Fix the parser', ['--pick'], NOW);
    for (const [input, why] of [['', 'no hook input'], ['{not json', 'not valid JSON'], ['[1,2]', 'not a JSON object']]) {
      const r = await p.h(['hook', 'stop'], NOW, input);
      expect(r).toMatchObject({ code: 0, stdout: '' });
      expect(r.stderr).toContain(why);
    }
  });

  it('a broken focus record lets the stop through instead of crashing', async () => {
    const p = await project();
    const id = await p.create('Fix the parser', ['--pick'], NOW);
    writeFileSync(p.workFile(id), '---\nid: "x\n<<<<<<< HEAD\n');
    const r = await p.h(['hook', 'stop'], NOW, stopInput());
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toContain('could not be read');
  });
});
