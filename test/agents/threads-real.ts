import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STRICT_RESULT_SCHEMA } from '../../dist/core/threads.js';
import { agentRepo } from './direct.js';
import { requestText, type Preset, type Turn } from './harness.js';

/**
 * A work thread (issue 10, seed 004) whose child is the real `claude` or `codex` CLI against the
 * loopback stand-in: two commands in one session, a checkpoint the child writes, a third command in
 * a fresh session from it, then close. threads-claude.test.ts and threads-codex.test.ts run it side by side.
 */
const closers: Array<() => Promise<void>> = [];

type Usage = NonNullable<Turn['usage']>;

const result = (summary: string, extra: Record<string, unknown> = {}) => ({
  status: 'completed', summary, files_read: ['src/grid/contract.ts'], files_changed: [], validation: [], discoveries: [], blocker: null, ready_for_next: true, ...extra,
});

/** The token figures holon must record for a command whose model requests reported these usages. */
function tokens(preset: Preset, uses: Usage[]) {
  const sum = (k: keyof Usage) => uses.reduce((n, u) => n + (u[k] ?? 0), 0);
  // Claude reports no reasoning figure from a stand-in that streams no thinking blocks; the output
  // figure the Responses API reports includes the reasoning tokens.
  return preset === 'claude'
    ? { uncached_input: sum('input'), cache_read: sum('cache_read'), cache_write: sum('cache_write'), output: sum('output'), reasoning: 0 }
    : { uncached_input: sum('input'), cache_read: sum('cache_read'), cache_write: sum('cache_write'), output: sum('output') + sum('reasoning'), reasoning: sum('reasoning') };
}

/** The total_cost_usd claude printed for a command (in the command's log). */
function printedCost(dir: string, commandId: string): number {
  const lines = readFileSync(join(dir, '.holon/local/threads', `${commandId}.log`), 'utf8').split('\n');
  return JSON.parse(lines.find((l) => l.includes('"type":"result"'))!).total_cost_usd;
}

export function threadSuite(preset: Preset): void {
  afterEach(async () => {
    while (closers.length) await closers.pop()!();
  });

  /** The model answers a CommandResult the way the CLI's structured-output option asks for it. */
  const answer = (value: object, usage: Usage): Turn =>
    preset === 'claude' ? { tool: { name: 'StructuredOutput', input: value as Record<string, unknown> }, usage } : { text: JSON.stringify(value), usage };

  /** How the request asked for the CommandResult: claude offers a StructuredOutput tool, codex a response format. */
  const schemaOf = (body: any) =>
    preset === 'claude' ? body.tools.find((t: any) => t.name === 'StructuredOutput')?.input_schema ?? null : body.text?.format?.type === 'json_schema' ? body.text.format.schema : null;

  describe(`a work thread with the real ${preset} CLI`, () => {
    it('runs two commands in one session, compacts to a checkpoint the child writes, runs a third from it, and closes', async () => {
      const r = await agentRepo(preset, 'parent');
      closers.push(r.close);
      mkdirSync(join(r.dir, 'src/grid'), { recursive: true });
      writeFileSync(join(r.dir, 'src/grid/contract.ts'), 'export const grid = 1;\n');
      r.git('add', '-A');
      r.git('commit', '-qm', 'grid');
      const t = await r.json(['thread', 'create', '--role', 'grid contract specialist', '--runner', preset, '--scope', 'src/grid/**']);
      expect(t.policy).toMatchObject({ runner: preset, scope: ['src/grid/**'] });
      const send = async (objective: string) => (await r.json(['thread', 'send', t.id, '--objective', objective, '--wait'])).command;

      // Command 1: a fresh session; the model answers the structured result at once.
      const U1: Usage = { input: 1500, cache_read: 0, cache_write: 400, output: 60, reasoning: 7 };
      const R1 = result('Four invariants: rows are 1-based, columns 0-based, no empty grid, cells immutable.', { discoveries: ['rows are 1-based'] });
      r.api.push(answer(R1, U1));
      const c1 = await send('Read the grid contract and report its invariants');
      expect(c1, JSON.stringify(c1)).toMatchObject({ seq: 1, session: 1, status: 'finished', result: R1, result_errors: [], raw_output: null, resumed_session: null });
      expect(c1.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(c1.usage).toEqual(tokens(preset, [U1]));
      expect(r.api.mainRequests).toHaveLength(1);
      const q1 = r.api.mainRequests[0].body;
      // The CLI asked the model for exactly holon's CommandResult schema.
      expect(schemaOf(q1)).toEqual(STRICT_RESULT_SCHEMA);
      expect(requestText(q1)).toContain('Objective: Read the grid contract and report its invariants');
      expect(requestText(q1)).toContain('Do only this command.');

      // Command 2 resumes the session: the model sees command 1's conversation, changes a file in
      // scope with its own tool, and answers.
      const fields = join(r.dir, 'src/grid/fields.ts');
      const U2a: Usage = { input: 200, cache_read: 1900, cache_write: 100, output: 40, reasoning: 3 };
      const U2b: Usage = { input: 80, cache_read: 2100, cache_write: 0, output: 30, reasoning: 0 };
      const R2 = result('Added the three requested fields.', { files_changed: ['src/grid/fields.ts'] });
      r.api.push(
        preset === 'claude' ? { tool: { name: 'Write', input: { file_path: fields, content: 'export const fields = 3;\n' } }, usage: U2a } : { shell: "printf 'export const fields = 3;\\n' > src/grid/fields.ts", usage: U2a },
        answer(R2, U2b),
      );
      const c2 = await send('Add only the three requested fields');
      expect(c2, JSON.stringify(c2)).toMatchObject({ seq: 2, session: 1, status: 'finished', result: R2, result_errors: [], resumed_session: c1.session_id, session_id: c1.session_id });
      expect(readFileSync(fields, 'utf8')).toBe('export const fields = 3;\n');
      expect(c2.scope_check).toEqual({ checked: true, reason: null, changed: ['src/grid/fields.ts'], outside_scope: [], unreported: [] });
      // This command's own token use, not the session's running total.
      expect(c2.usage).toEqual(tokens(preset, [U2a, U2b]));
      // Claude prints the resumed session's whole cost: the command records its own share.
      if (preset === 'claude') {
        expect(c1.cost_usd).toBeGreaterThan(0);
        expect(c1.cost_usd + c2.cost_usd).toBeCloseTo(printedCost(r.dir, c2.id), 10);
        expect(c2.cost_usd).toBeLessThan(printedCost(r.dir, c2.id));
      } else expect(c2.cost_usd).toBeNull();
      expect(r.api.mainRequests).toHaveLength(3);
      const q2 = r.api.mainRequests[1].body;
      expect(schemaOf(q2)).toEqual(STRICT_RESULT_SCHEMA);
      const resumed = requestText(q2);
      expect(resumed).toContain('Read the grid contract and report its invariants');
      expect(resumed).toContain(R1.summary);
      expect(resumed).toContain('Objective: Add only the three requested fields');

      // Compaction: the child writes the checkpoint in its session (no schema asked), and the thread
      // moves on to a fresh session.
      const CK = 'Checkpoint: four invariants (rows 1-based, columns 0-based, no empty grid, immutable cells); fields.ts added; tests are next.';
      const UC: Usage = { input: 50, cache_read: 2300, cache_write: 0, output: 45, reasoning: 0 };
      r.api.push({ text: CK, usage: UC });
      const compact = await r.json(['thread', 'compact', t.id]);
      expect(compact.checkpoint).toMatchObject({ session: 1, text: CK, written_by: 'child', covers: [c1.id, c2.id], usage: tokens(preset, [UC]) });
      expect(compact.thread).toMatchObject({ state: 'compacted', session: 2, session_id: null });
      expect(r.api.mainRequests).toHaveLength(4);
      const qc = r.api.mainRequests[3].body;
      expect(schemaOf(qc)).toBeNull();
      expect(requestText(qc)).toContain('Add only the three requested fields');
      expect(requestText(qc)).toContain('Write the checkpoint now');

      // Command 3: a fresh session that starts from the checkpoint, role and policy, and knows
      // nothing else of the first session.
      const U3: Usage = { input: 900, cache_read: 0, cache_write: 300, output: 50, reasoning: 4 };
      const R3 = result('Added focused contract tests for the new fields.', { files_read: ['src/grid/fields.ts'] });
      r.api.push(answer(R3, U3));
      const c3 = await send('Add focused contract tests for the new fields');
      expect(c3, JSON.stringify(c3)).toMatchObject({ seq: 3, session: 2, status: 'finished', result: R3, result_errors: [], resumed_session: null });
      expect(c3.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(c3.session_id).not.toBe(c1.session_id);
      expect(c3.usage).toEqual(tokens(preset, [U3]));
      expect(r.api.mainRequests).toHaveLength(5);
      const fresh = requestText(r.api.mainRequests[4].body);
      expect(fresh).toContain(CK);
      expect(fresh).toContain('Your role: grid contract specialist');
      expect(fresh).toContain('write scope: src/grid/**');
      expect(fresh).not.toContain('Read the grid contract and report its invariants');
      expect(fresh).not.toContain(R1.summary);

      // inspect sums the token use of every command and of the checkpoint.
      const view = await r.json(['thread', 'inspect', t.id]);
      expect(view).toMatchObject({ state: 'idle', session: 2, session_id: c3.session_id, active_command: null, compactions: 1 });
      expect(view.commands.map((c: any) => c.id)).toEqual([c1.id, c2.id, c3.id]);
      expect(view.tokens.commands).toEqual(tokens(preset, [U1, U2a, U2b, U3]));
      expect(view.tokens.checkpoints).toEqual(tokens(preset, [UC]));
      expect(view.tokens.total).toEqual(tokens(preset, [U1, U2a, U2b, U3, UC]));

      // Closed for good: a later send is refused and reaches no model.
      await r.h(['thread', 'close', t.id, '--reason', 'grid work merged']);
      const late = await r.run(['thread', 'send', t.id, '--objective', 'One more thing', '--wait']);
      expect(late.code).toBe(3);
      expect(late.stderr).toMatch(/closed/);
      expect(r.api.mainRequests).toHaveLength(5);
      expect(existsSync(join(r.dir, '.holon/agents/parent/threads', t.id, 'thread.yaml'))).toBe(true);
    });

    // Codex passes the schema to the model and hands back whatever text came: holon validates it.
    if (preset === 'codex') it('records an answer that does not match the CommandResult schema as failed, with why and the raw text', async () => {
      const r = await agentRepo(preset, 'parent');
      closers.push(r.close);
      const t = await r.json(['thread', 'create', '--role', 'reviewer', '--runner', preset]);
      const raw = JSON.stringify({ status: 'done', summary: 'Looked at it.' });
      r.api.push({ text: raw, usage: { input: 700, output: 20 } });
      const sent = await r.run(['thread', 'send', t.id, '--objective', 'Review the grid contract', '--wait', '--json']);
      expect(sent.code, sent.stderr).toBe(3);
      const c = JSON.parse(sent.stdout).command;
      expect(c).toMatchObject({ status: 'finished', result: { status: 'failed', ready_for_next: false }, raw_output: raw, usage: tokens(preset, [{ input: 700, output: 20 }]) });
      expect(c.result.summary).toMatch(/does not match the CommandResult schema/);
      expect(c.result_errors.join('\n')).toMatch(/status/);
      expect(c.result_errors.join('\n')).toMatch(/ready_for_next/);
      expect((await r.json(['thread', 'inspect', t.id])).state).toBe('idle');
    });
  });
}
