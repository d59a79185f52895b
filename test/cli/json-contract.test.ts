import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../dist/cli/program.js';
import { WORK_JSON_KEYS } from '../../dist/core/workitem.js';
import { ROOT, project } from '../helpers/cli.js';
import { validator } from '../helpers/json-schema.js';

const SCHEMAS = join(ROOT, 'schemas');
const validate = validator(SCHEMAS);

/** Every command with a --json option, named as its schema file is: `timer add` -> timer-add. */
function jsonCommands(cmd: Command, path: string[] = []): string[] {
  const out: string[] = [];
  for (const sub of cmd.commands) {
    const p = [...path, sub.name()];
    if (sub.options.some((o) => o.long === '--json')) out.push(p.join('-'));
    out.push(...jsonCommands(sub, p));
  }
  return out;
}

describe('the --json contract', () => {
  it('every command\'s --json output has schema_version and matches its schema in schemas/; a WorkItem has the same keys in the same order everywhere', async () => {
    const p = await project('rev');
    execFileSync('git', ['init', '-q'], { cwd: p.dir });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x'], { cwd: p.dir });
    const seen = new Map<string, any>();
    const j = async (schema: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
      const end = args.includes('--') ? args.indexOf('--') : args.length;
      const r = await p.h([...args.slice(0, end), '--json', ...args.slice(end)], env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const v = JSON.parse(r.stdout);
      seen.set(schema, v);
      return v;
    };
    await j('agent-add', ['agent', 'add', 'bob']);
    await j('agent-list', ['agent', 'list']);
    await j('init', ['init']);
    const a = (await j('new', ['new', 'Review PR', '--accept', 'tests pass'])).id;
    const gate = (await p.h(['new', 'Release?', '--class', 'user_gate', '--decision-scope', 'release:project:app'])).stdout.trim();
    const c = (await p.h(['new', 'Publish', '--needs-decision', 'release:action:app', '--depends-on', a])).stdout.trim();
    await j('list', ['list']);
    await j('show', ['show', a]);
    await j('pick', ['pick', a]);
    await j('progress', ['progress', a, 'did']);
    await j('evidence', ['evidence', a, 'proof', '--commit', 'HEAD']);
    await j('on-return', ['on-return', a, 'next']);
    await j('resume', ['resume', a]);
    const primed = await j('prime', ['prime']);
    expect(primed.focus.work_item.id).toBe(a);
    await j('check', ['check']);
    await j('frontier', ['frontier']);
    await j('explain', ['explain', c]);
    await j('claim', ['claim', a, '--ttl', '1h']);
    await j('renew', ['renew', a, '--ttl', '2h']);
    await j('transfer', ['transfer', a, '--to', 'bob']);
    await j('release', ['release', a], { HOLON_ACTOR: 'agent:bob' });
    await j('edit', ['edit', a, '--title', 'Review PR 101']);
    await j('capabilities', ['capabilities']);
    await j('wait', ['wait', a, '--for', 'external:ci:1', '--reason', 'ci']);
    const k = (await j('task-run', ['task', 'run', '--work', a, '--', 'true'])).id;
    await j('task-list', ['task', 'list']);
    await j('task-show', ['task', 'show', k]);
    await j('notify', ['notify', 'external:ci:1']);
    await j('tell', ['tell', 'hello']);
    await j('inbox', ['inbox', '--all']);
    const t = (await j('timer-add', ['timer', 'add', '--in', '1h'])).id;
    await j('timer-list', ['timer', 'list']);
    await j('timer-cancel', ['timer', 'cancel', t]);
    await j('tick', ['tick']);
    await j('decide', ['decide', gate, '--approve']);
    const d = (await p.h(['new', 'd'])).stdout.trim();
    await j('defer', ['defer', d, '--until', '2030-01-01T00:00:00Z', '--reason', 'later']);
    await j('block', ['block', d, '--reason', 'x', '--recovery', 'y']);
    await j('reopen', ['reopen', d]);
    const e = (await p.h(['new', 'e'])).stdout.trim();
    await j('supersede', ['supersede', d, '--by', e, '--reason', 'r']);
    await j('complete', ['complete', e, '--result', 'r', '--evidence', 'e', '--no-followup', 'n']);
    await j('watch', ['watch', '--once']);
    await j('runs', ['runs']);
    await j('index', ['index', '--status']);
    await j('ingress-url', ['ingress', 'url']);
    await j('ingress-rotate', ['ingress', 'rotate']);
    const shown = await j('ingress-show', ['ingress', 'show']);
    expect(shown).toMatchObject({ live: true, events: 0, last_used_at: null });
    expect(JSON.stringify(shown)).not.toMatch(/sha256|hooks\//);
    await j('ingress-revoke', ['ingress', 'revoke']);
    await j('agent-stop', ['agent', 'stop', 'rev']);
    await j('agent-start', ['agent', 'start', 'rev']);

    // A run to show: bob gets a command runner and new work, and one watch pass runs it.
    const bobFile = join(p.home, 'agents/bob/AGENTS.md');
    writeFileSync(bobFile, readFileSync(bobFile, 'utf8').replace('  command: ""', '  command: "true"'));
    expect((await p.h(['new', 'Bob works', '--agent', 'bob'])).code).toBe(0);
    expect((await p.h(['watch', '--once', '--agent', 'bob'])).code).toBe(0);
    const run = (await p.json(['runs', '--agent', 'bob'])).runs[0];
    expect(run, 'bob\'s run').toBeDefined();
    await j('runs-show', ['runs', 'show', run.id]);
    await j('dash', ['dash']);

    // Agent CLIs and git: setup writes into the temp project (claude for real, codex as a plan).
    await j('setup-claude', ['setup', 'claude']);
    await j('setup-codex', ['setup', 'codex', '--dry-run']);
    await j('setup-git', ['setup', 'git']);

    // A thread whose child is a tiny command runner: create, send (foreground), inspect, list, compact, close.
    writeFileSync(join(p.dir, 'child.mjs'), `let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => {
  console.log(JSON.stringify({ status: 'completed', summary: 'read it', files_read: ['child.mjs'], ready_for_next: true, usage: { uncached_input: 10, cache_read: 0, cache_write: 0, output: 5 } }));
});
`);
    const th = (await j('thread-create', ['thread', 'create', '--role', 'reader', '--command', 'node child.mjs', '--scope', 'src/**', '--work', a])).id;
    await j('thread-send', ['thread', 'send', th, '--objective', 'read child.mjs', '--wait']);
    await j('thread-inspect', ['thread', 'inspect', th]);
    await j('thread-list', ['thread', 'list']);
    await j('thread-compact', ['thread', 'compact', th, '--checkpoint', 'knows child.mjs']);
    await j('thread-close', ['thread', 'close', th, '--reason', 'done']);

    // sync against a bare remote in the temp dir; merge-file on three versions of a record.
    const remote = join(p.dir, '..', `${basename(p.dir)}-remote.git`);
    execFileSync('git', ['init', '-q', '--bare', remote]);
    execFileSync('git', ['remote', 'add', 'origin', remote], { cwd: p.dir });
    const synced = await j('sync', ['sync'], { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' });
    expect(synced.pushed).toBe(true);
    const record = p.workFile(d);
    const base = readFileSync(record, 'utf8');
    const [fb, fo, ft] = ['base', 'ours', 'theirs'].map((n) => join(p.dir, `${n}.md`));
    writeFileSync(fb, base);
    writeFileSync(fo, base.replace(/^title: .*$/m, 'title: "ours"'));
    writeFileSync(ft, base);
    const merged = await j('merge-file', ['merge-file', fb, fo, ft, `.holon/agents/rev/work/${d}.md`]);
    expect(merged).toMatchObject({ clean: true, kind: 'work' });

    // Every command that takes --json has a schema and was exercised here (a new command must add both).
    // demo is left out: it plays a scenario of its own for about a minute (schemas/demo.json still describes it).
    const commands = jsonCommands(buildProgram()).filter((c) => c !== 'demo').sort();
    expect([...seen.keys()].sort()).toEqual(commands);
    const files = readdirSync(SCHEMAS).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
    for (const name of commands) expect(files, name).toContain(name);
    for (const [name, v] of seen) {
      expect(v.schema_version, name).toBe(1);
      expect(Object.keys(v)[0], name).toBe('schema_version');
      expect(validate(`${name}.json`, v), name).toEqual([]);
    }
    // One WorkItem shape: wherever an item appears, its keys are WORK_JSON_KEYS in order (then the command's own).
    const items = [
      ...['new', 'show', 'progress', 'evidence', 'on-return', 'edit', 'complete', 'supersede', 'defer', 'block', 'reopen'].map((n) => seen.get(n)),
      seen.get('pick').item, seen.get('wait').item, ...seen.get('list').items,
    ];
    for (const item of items) {
      const { schema_version: _, ...rest } = item;
      expect(Object.keys(rest).slice(0, WORK_JSON_KEYS.length)).toEqual([...WORK_JSON_KEYS]);
    }
  }, 240_000);

  it('the checker is not a rubber stamp: a wrong type, a missing key and a bad enum are reported', () => {
    const item = { schema_version: 1, agent: 'a', stopped: 'yes', changed: true };
    expect(validate('agent-start.json', item)).toEqual(['$.stopped: "yes" is not false']);
    expect(validate('check.json', { schema_version: 1, problems: [] })).toEqual(['$: missing "ok"']);
    expect(validate('error.json', { schema_version: 1, error: { code: 'oops', exit_code: 9, message: 'm', fix: null } })).toHaveLength(2);
    // The schemas of the later commands (threads, sync, dash, prime) are as strict.
    expect(validate('merge-file.json', { schema_version: 1, path: 'x', kind: 'markdown', clean: true, conflicts: [] })).toHaveLength(1);
    expect(validate('thread-list.json', { schema_version: 1, threads: [{ id: 'th-1' }] }).join('\n')).toMatch(/missing "state"/);
    expect(validate('prime.json', { schema_version: 1, home: false, message: 'm' })).toEqual(['$: matches none of anyOf']);
    expect(validate('dash.json', { schema_version: 1 }).length).toBeGreaterThan(5);
  });

  it('under --json an error is a JSON object on stdout (code, exit_code, message, fix); stderr keeps the human line', async () => {
    const p = await project();
    const cases: Array<[string[], number, string]> = [
      [['show', 'w-nosuch99', '--json'], 4, 'not_found'],
      [['new', 'x', '--class', 'epic', '--json'], 3, 'invalid'],
      [['new', '--json'], 2, 'usage'],
      [['list', '--bogus', '--json'], 2, 'usage'],
    ];
    for (const [args, code, kind] of cases) {
      const r = await p.h(args);
      expect(r.code, args.join(' ')).toBe(code);
      const v = JSON.parse(r.stdout);
      expect(validate('error.json', v), args.join(' ')).toEqual([]);
      expect(v.error).toMatchObject({ code: kind, exit_code: code });
      expect(r.stderr).not.toBe('');
    }
    const bad = JSON.parse((await p.h(['new', 'x', '--class', 'epic', '--json'])).stdout);
    expect(bad.error).toEqual({ code: 'invalid', exit_code: 3, message: 'unknown class "epic"', fix: expect.stringContaining('advancement_task') });
    // Without --json, stdout stays empty on an error.
    expect((await p.h(['show', 'w-nosuch99'])).stdout).toBe('');
  });
});
