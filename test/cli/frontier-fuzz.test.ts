import { appendFileSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holon, project, tempDir } from '../helpers/cli.js';
import { git } from '../helpers/clones.js';
import { sleep, startKeeper } from '../helpers/watch.js';
import { diff, iso, prng, record, T0, writeHome } from '../helpers/fuzz-home.js';

/**
 * A randomized differential test of the frontier's fast paths (cached answer, snapshot, graph cache,
 * read index and patch, title index, kept listing): a seeded home of some 60-120 items with
 * dependencies, gates, waits, claims and a second agent, then a random sequence of holon commands and
 * hand edits; after each, every view's fast answer (twice: built, then reused, in random view order)
 * must be byte for byte the answer of a full evaluation (the same checkout without local/). A seed
 * that fails says its seed, its step and the whole sequence that led there.
 */

/** One seed's home and run: `steps` random operations, each followed by a check of the fast answers. */
/**
 * `keeper`: an index keeper runs beside, which refreshes the answers 50 ms after a change (true), or
 * only after ten minutes of quiet ('late': every pick right after a change comes before its refresh,
 * and reads the top of runnable as a patch leaves it, ops/frontier-patched.ts).
 */
async function fuzz(seed: number, opts: { n: number; steps: number; keeper?: boolean | 'late'; contentCache?: boolean }) {
  const rnd = prng(seed);
  const p = await project();
  if ((await p.h(['agent', 'add', 'peer'])).code !== 0) throw new Error('agent add failed');
  const work = join(p.home, 'agents/main/work');
  const peerWork = join(p.home, 'agents/peer/work');
  mkdirSync(peerWork, { recursive: true });
  writeHome(rnd, work, peerWork, opts.n);
  for (const args of [['init', '-q', '-b', 'main'], ['config', 'user.email', 't@test'], ['config', 'user.name', 'test']]) git(p.dir, ...args);
  const commits: string[] = [];
  const commit = (m: string) => (git(p.dir, 'add', '-A'), git(p.dir, 'commit', '-qm', m, '--allow-empty'), commits.push(git(p.dir, 'rev-parse', 'HEAD').trim()));
  commit('home');

  let now = T0;
  // With `contentCache`, the machine's content cache (by git blob id) is on for every call but the full ones.
  const cacheDir = opts.contentCache ? tempDir('holon-cc-') : 'off';
  const env = () => ({ HOLON_NOW: iso(now), HOLON_TRACE_INDEX: '1', HOLON_INDEX_WAIT_MS: '60000', HOLON_CACHE_DIR: cacheDir });
  const keeper = opts.keeper ? startKeeper(p.dir, { HOLON_INDEX_SWEEP_MS: '300', HOLON_INDEX_REFRESH: '1', ...(opts.keeper === 'late' ? { HOLON_INDEX_REFRESH_SETTLE_MS: '600000' } : {}) }) : null;
  await keeper?.ready();
  const local = join(p.home, 'local');
  const log: string[] = [];
  const paths: Record<string, number> = {};
  let lastFull: any = null;
  let lastAll: any = null;
  const undo: Array<() => void> = [];

  const run = async (...args: string[]) => {
    const r = await p.h(args, env());
    log.push(`holon ${args.map((a) => (/^[\w:./@-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}  -> ${r.code}`);
    if (r.code === 1) throw new Error(`seed ${seed}: unexpected failure of holon ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  const file = (id: string) => join(work, `${id}.md`);
  const names = () => readdirSync(work).filter((n) => /^w-.*\.md$/.test(n)).map((n) => n.slice(0, -3));
  const statusOf = (id: string) => /^status: "?(\w+)/m.exec(readFileSync(file(id), 'utf8'))?.[1] ?? '?';
  const withStatus = (...s: string[]) => names().filter((id) => existsSync(file(id)) && s.includes(statusOf(id)));
  const old = (f: string) => Date.now() - statSync(f).ctimeMs > 2100;
  const settle = async (files: string[]) => { while (files.some((f) => existsSync(f) && !old(f))) await sleep(100); };
  /** A hand edit: in place, or by a temp file renamed over it (as editors save). */
  const rewrite = (id: string, edit: (t: string) => string, what: string) => {
    const text = edit(readFileSync(file(id), 'utf8'));
    if (rnd.next() < 0.5) writeFileSync(file(id), text);
    else writeFileSync(`${file(id)}.tmp`, text), renameSync(`${file(id)}.tmp`, file(id));
    log.push(`hand: ${what} ${id}`);
  };
  const random = () => rnd.one(names());
  const open = () => rnd.one(withStatus('open'));
  const flip = (t: string) => t.replace(/status: "(open|done)"/, (_m, x) => `status: "${x === 'open' ? 'done' : 'open'}"`);
  /** A front matter key set to `value` (lines after `key:`), or taken out (null), wherever it was. */
  const setKey = (t: string, key: string, value: string | null) => {
    const out = t.replace(new RegExp(`^${key}:( .*)?\\n((?:  |- ).*\\n)*`, 'm'), '');
    return value === null ? out : out.replace(/\n---\n/, `\n${key}:${value}\n---\n`);
  };
  const when = () => iso(now + (rnd.int(120) - 30) * 60_000);
  /** Hand edits of the fields the frontier reads, in the spellings YAML allows. */
  const claim = (who: string) => `\n  holder: "agent:${who}"\n  claimed_at: "2026-11-30T05:00:00Z"\n  expires_at: "${when()}"\n  version: 3\n  epoch: 1`;
  const fieldEdits: Array<[string, () => string | null]> = [
    ['created_at', () => ` "2026-11-${String(1 + rnd.int(28)).padStart(2, '0')}T00:00:00Z"`], ['title', () => ` plain words ${rnd.int(9)}`],
    ['title', () => " 'it''s \\ here'"], ['title', () => ' "tab\\there \\u00e9 \\x41 \\/ 🎉 <&>"'], ['title', () => ' "x" # a comment'], ['title', () => null],
    ['priority', () => ` P${rnd.int(5)}`], ['priority', () => null], ['priority', () => rnd.one([' "P7"', ' "p1"', ' 3', ' null'])!],
    ['status', () => ` ${rnd.one(['open', 'done', 'blocked', 'deferred'])}`], ['class', () => ` "${rnd.one(['advancement_task', 'user_action', 'continuous_monitor', 'blocker'])}"`],
    ['action', () => ' "review"'], ['agent', () => rnd.one([' "peer"', ' "main"', ' main'])!], ['superseded_by', () => ` "${random()}"`],
    ['blocker', () => '\n  reason: "by hand"\n  recovery: "x"'], ['claim', () => claim('peer')], ['claim', () => claim('main')], ['claim', () => null],
    ['depends_on', () => null], ['depends_on', () => `\n  - "${random()}"`], ['depends_on', () => ` ["${random()}", "${random()}"]`],
    ['resume_when', () => `\n  - "${rnd.one([`at:${when()}`, `done:${random()}`, 'event:external:r1'])}"`], ['exclude', () => ' ["main"]'],
    ['needs_decision', () => `\n  - "api:action:k${rnd.int(3)}"`], ['id', () => ` "w-zz${rnd.int(999)}"`], ['note', () => ` "n${rnd.int(99)}"`],
  ];

  /** Each fast answer (every view twice, in random order) against a full evaluation without local/. */
  const same = async (step: string, dir = p.dir) => {
    const local = join(dir, '.holon/local');
    const copy = keeper && dir === p.dir;
    // The views asked, in random order: the ones not asked keep older answers, which later calls meet.
    const views = [[], ['--all'], ['--limit', '3'], ['--agent', 'peer']].filter((_, i) => rnd.next() < [0.8, 0.7, 0.4, 0.2][i]);
    if (!views.length) views.push([]);
    const fast: Array<{ v: string[]; out: string; trace: string }> = [];
    for (let round = 0; round < 2; round++) {
      for (const v of rnd.shuffle(views)) {
        const r = await holon(['frontier', '--json', ...v], { cwd: dir, env: env() });
        if (r.code !== 0) throw new Error(`seed ${seed} ${step}: frontier ${v.join(' ')} exited ${r.code}: ${r.stderr}`);
        fast.push({ v, out: r.stdout, trace: r.stderr });
        const how = /frontier: (patched|reused with|reused \([^)]*\)|evaluated|not patched \([^)]*\))/.exec(r.stderr)?.[1] ?? 'other';
        paths[how] = (paths[how] ?? 0) + 1;
        for (const t of r.stderr.match(/main: (kept|content cache|every file stat'ed)|frontier: (cut to \d+|reused \(cut from the same default answer\))/g) ?? []) paths[t] = (paths[t] ?? 0) + 1;
      }
    }
    const full = await fullOf(step, views, dir);
    for (const f of fast) {
      const want = full.get(f.v.join(' '))!;
      if (f.out !== want) throw new Error(`seed ${seed}, ${step}: frontier --json ${f.v.join(' ')} differs from a full evaluation\n${diff(JSON.parse(f.out), JSON.parse(want))}\ntrace:\n${f.trace}\nsteps:\n${log.join('\n')}`);
    }
    if (dir !== p.dir) return;
    lastFull = full.has('') ? JSON.parse(full.get('')!) : null;
    lastAll = full.has('--all') ? JSON.parse(full.get('--all')!) : null;
    if (lastFull?.truncated.not_runnable) paths.cut = (paths.cut ?? 0) + 1;
    if (lastFull?.problems.length) paths.problems = (paths.problems ?? 0) + 1;
  };

  /** The views' full evaluations (by their args joined), with no local/ and no keeper. */
  const fullOf = async (step: string, views: string[][], dir = p.dir) => {
    const local = join(dir, '.holon/local');
    const copy = keeper && dir === p.dir;
    const full = new Map<string, string>();
    // With a keeper that refreshes the answers, local/ stays where it is (the keeper writes into it):
    // the full evaluation runs in a copy of the checkout without it. The probes' results are state, not
    // a cache (holon capabilities --refresh): they go with the checkout.
    let where = dir;
    const caps = existsSync(join(local, 'cache/capabilities.json')) ? readFileSync(join(local, 'cache/capabilities.json')) : null;
    if (copy) {
      where = join(tempDir(), 'copy');
      cpSync(dir, where, { recursive: true, filter: (s) => !s.startsWith(local) });
    } else renameSync(local, `${local}.kept`);
    if (caps) mkdirSync(join(where, '.holon/local/cache'), { recursive: true }), writeFileSync(join(where, '.holon/local/cache/capabilities.json'), caps);
    try {
      for (const v of views) {
        const r = await holon(['frontier', '--json', ...v], { cwd: where, env: { ...env(), HOLON_INDEX: '0', HOLON_CACHE_DIR: 'off' } });
        if (r.code !== 0) throw new Error(`seed ${seed} ${step}: full frontier exited ${r.code}: ${r.stderr}`);
        full.set(v.join(' '), r.stdout.split(where).join(dir));
      }
    } finally {
      if (copy) rmSync(where, { recursive: true, force: true });
      else rmSync(local, { recursive: true, force: true }), renameSync(`${local}.kept`, local);
    }
    return full;
  };

  const ops: Array<[number, () => Promise<unknown> | unknown]> = [
    [6, async () => { const id = open(); if (id) await run('complete', id, '--result', 'r', '--evidence', 'e', '--no-followup', 'none'); }],
    [4, async () => {
      // pick with no id reads the cached answer: it must take the full evaluation's top runnable item.
      const want = lastFull?.runnable[0]?.id;
      const r = await run('pick');
      if (want && r.code === 0) expect(r.stdout + r.stderr, `seed ${seed}: pick took another item than the full evaluation's first\n${log.join('\n')}`).toContain(want);
    }],
    [2, async () => { const id = random(); if (id) await run('pick', id); }],
    [opts.keeper === 'late' ? 10 : 0, async () => {
      // A change, then a pick at once: before the keeper's refresh, it reads the top of runnable as a
      // patch leaves it (the changes pile up until a frontier call stores an answer), and must take
      // the full evaluation's first item all the same.
      const id = open();
      if (!id) return;
      if (rnd.next() < 0.5) await run('complete', id, '--result', 'r', '--evidence', 'e', '--no-followup', 'none');
      else rewrite(id, (t) => t.replace(/^status: .*$/m, `status: "${rnd.one(['done', 'blocked'])}"`), 'status');
      const want = JSON.parse((await fullOf('before a pick', [[]])).get('')!).runnable[0]?.id;
      const r = await run('pick');
      if (/frontier: top of runnable patched/.test(r.stderr)) paths['pick: top of runnable patched'] = (paths['pick: top of runnable patched'] ?? 0) + 1;
      if (want && r.code === 0) expect(r.stdout + r.stderr, `seed ${seed}: pick took another item than the full evaluation's first\n${log.join('\n')}`).toContain(want);
      if (want) expect(r.code, r.stderr).toBe(0);
    }],
    [3, async () => { const id = open(); if (id) await run('claim', id, ...(rnd.next() < 0.5 ? ['--ttl', `${5 + rnd.int(60)}m`] : [])); }],
    [2, async () => { const id = random(); if (id) await run('release', id, '--force'); }],
    [3, async () => { const id = open(); if (id) await run('block', id, '--reason', 'r', '--recovery', 'x'); }],
    [3, async () => { const id = rnd.one(withStatus('blocked', 'deferred', 'done')); if (id) await run('reopen', id); }],
    [2, async () => { const id = open(); if (id) await run('defer', id, '--until', iso(now + (5 + rnd.int(90)) * 60_000), '--reason', 'later'); }],
    [3, async () => { const id = open(); if (id) await run('wait', id, '--for', `external:r${rnd.int(3)}`, '--reason', 'r', ...(rnd.next() < 0.3 ? ['--recheck', '20m'] : [])); }],
    [2, () => run('notify', `external:r${rnd.int(3)}`)],
    [3, async () => { const id = random(); if (id) await run('edit', id, '--title', rnd.one(['renamed', 'a "quoted" título', `t${rnd.int(99)}`])!); }],
    [3, async () => { const id = random(); if (id) await run('edit', id, '--priority', rnd.one(['P0', 'P1', 'P2', 'P3', 'P4', 'none'])!); }],
    [2, async () => { const a = open(), b = random(); if (a && b) await run('edit', a, rnd.next() < 0.7 ? '--add-depends-on' : '--remove-depends-on', b); }],
    [1, async () => { const id = open(); if (id) await run('edit', id, '--max-age', rnd.one(['10m', '1h', 'off'])!); }],
    [4, async () => {
      const deps = rnd.next() < 0.6 ? ['--depends-on', [random(), random()].filter(Boolean).join(',')] : [];
      const extra = rnd.one([[], [], ['--needs-decision', `api:action:k${rnd.int(3)}`], ['--class', 'user_gate', '--decision-scope', `api:action:k${rnd.int(3)}`], ['--class', 'user_action']])!;
      await run('new', `made ${log.length}`, '--priority', `P${rnd.int(5)}`, ...deps, ...extra);
    }],
    [2, async () => { const gate = rnd.one(names().filter((id) => /class: "user_gate"/.test(readFileSync(file(id), 'utf8')))); if (gate) await run('decide', gate, rnd.next() < 0.7 ? '--approve' : '--reject'); }],
    [2, async () => { const a = open(), b = open(); if (a && b && a !== b) await run('supersede', a, '--by', b, '--reason', 'r'); }],
    [2, async () => { const id = random(); if (id) await run('progress', id, 'a note', ...(rnd.next() < 0.3 ? ['--commit', 'HEAD'] : [])); }],
    [2, async () => { const id = random(); if (id) await run('evidence', id, 'seen', ...(rnd.next() < 0.5 ? ['--commit', 'HEAD'] : [])); }],
    [4, async () => { const id = random(), to = rnd.one(['open', 'done', 'blocked'])!; if (id) rewrite(id, (t) => t.replace(/^status: .*$/m, `status: "${to}"`), `status ${to}`); }],
    [2, async () => { const id = random(); if (id) rewrite(id, (t) => t.replace(/^priority: .*$/m, `priority: "P${rnd.int(5)}"`).replace(/^title: .*$/m, `title: "hand ${rnd.int(99)}"`), 'title and priority'); }],
    [3, async () => {
      // Same size, mtime restored: only the ctime moves. On a file past the racy window, checked once the edit is too.
      const id = rnd.one(names().filter((x) => old(file(x))));
      if (!id) return;
      const [st, t] = [statSync(file(id)), readFileSync(file(id), 'utf8')];
      writeFileSync(file(id), rnd.next() < 0.5 ? flip(t) : t.replace(/priority: "P(\d)"/, (_m, d) => `priority: "P${(Number(d) + 1) % 5}"`));
      utimesSync(file(id), st.atime, st.mtime);
      log.push(`hand: same size, mtime restored ${id}`);
      await settle([file(id)]);
    }],
    [2, async () => {
      const id = random(), commit = rnd.next() < 0.5 ? 'deadbeef' : commits[commits.length - 1].slice(0, 7);
      if (id) appendFileSync(file(id), rnd.next() < 0.5 ? '\nappended text\n' : `\n## Evidence\n\n- ${iso(now - 600_000)} [commit ${commit}] appended\n`), log.push(`hand: append ${id}`);
    }],
    [2, async () => { const id = random(); if (id) unlinkSync(file(id)), log.push(`hand: rm ${id}`); }],
    [2, async () => {
      const from = random(), id = `w-c${(log.length * 7919 + seed).toString(32).padStart(5, '0')}`;
      if (from) writeFileSync(file(id), readFileSync(file(from), 'utf8').replace(/^id: .*$/m, `id: "${id}"`)), log.push(`hand: cp ${from} ${id}`);
    }],
    [2, async () => { commit(`step ${log.length}`); log.push('git commit -am'); }],
    [2, async () => {
      const c = rnd.one(commits)!, path = rnd.one(git(p.dir, 'ls-tree', '-r', '--name-only', c, '.holon/agents/main/work').trim().split('\n').filter(Boolean));
      if (path) git(p.dir, 'checkout', c, '--', path), log.push(`git checkout ${c.slice(0, 7)} -- ${path}`);
    }],
    [1, async () => { const f = join(peerWork, rnd.one(readdirSync(peerWork))!); writeFileSync(f, flip(readFileSync(f, 'utf8'))), log.push(`hand: peer status ${basename(f)}`); }],
    [1, async () => { const id = random(); if (id) await run('explain', id); }],
    [2, async () => { const id = open(); if (id) await run('defer', id, '--when', rnd.one([`event:external:r${rnd.int(3)}`, `done:${random()}`])!, '--reason', 'r'); }],
    [1, async () => { const id = open(); if (id) await run('wait', id, '--for', 'timer', '--in', `${5 + rnd.int(60)}m`, '--reason', 'r'); }],
    [1, () => run('tick')],
    [3, async () => {
      // A priority where the default view's cap cuts not_runnable: just before the cut, or after it.
      const id = rnd.one<string>((lastAll?.not_runnable ?? []).slice(45).map((e: any) => e.id));
      const to = rnd.one(['P0', 'P1', 'P2', 'P3', 'P4'])!;
      if (id && existsSync(file(id))) rnd.next() < 0.5 ? await run('edit', id, '--priority', to) : rewrite(id, (t) => setKey(t, 'priority', ` "${to}"`), `priority ${to}`);
    }],
    // The caches gone (a fresh clone's first call, or someone's rm): the content cache may answer.
    [1, () => (rmSync(join(local, 'cache'), { recursive: true, force: true }), log.push('rm -rf .holon/local/cache'))],
    [1, () => (git(p.dir, ...(rnd.next() < 0.5 ? ['add', '-A'] : ['status', '--porcelain'])), log.push('git add -A / git status'))],
    [opts.contentCache ? 2 : 0, async () => {
      // A fresh clone of the last commit, its first calls helped by the content cache; maybe one file
      // edited at once with its size and mtime kept (its index entry then lies but for the ctime).
      const clone = join(tempDir(), 'clone');
      git(p.dir, 'clone', '-q', p.dir, clone);
      const cw = join(clone, '.holon/agents/main/work');
      const id = rnd.one(readdirSync(cw).filter((n) => /^w-.*\.md$/.test(n)));
      if (id && rnd.next() < 0.5) {
        const st = statSync(join(cw, id));
        writeFileSync(join(cw, id), flip(readFileSync(join(cw, id), 'utf8')));
        utimesSync(join(cw, id), st.atime, st.mtime);
      }
      log.push(`fresh clone${id ? `, ${id} edited` : ''}`);
      await same(`clone at step ${log.length}`, clone);
      rmSync(clone, { recursive: true, force: true });
    }],
    [2, async () => {
      // The settings the frontier reads: the agent's capabilities, a probe, the home's max_age; the probes run.
      const [kind, agents, yaml] = [rnd.int(4), join(p.home, 'agents/main/AGENTS.md'), join(p.home, 'holon.yaml')];
      const edit = (f: string, e: (t: string) => string) => writeFileSync(f, e(readFileSync(f, 'utf8')));
      if (kind === 0) edit(agents, (t) => t.replace(/^capabilities: .*$/m, rnd.next() < 0.5 ? 'capabilities: ["shell", "gpu"]' : 'capabilities: ["shell"]'));
      else if (kind === 1) edit(yaml, (t) => t.replace(/probe: ".*"/, `probe: "${rnd.one(['true', 'exit 0', 'false'])}"`));
      else if (kind === 2) edit(yaml, (t) => (t.includes('freshness:') ? t.replace(/freshness:\n.*\n/, '') : `${t}freshness:\n  max_age: "${rnd.one(['30m', '2h'])}"\n`));
      kind === 3 ? await run('capabilities', '--refresh') : log.push(`hand: settings ${kind}`);
    }],
    [6, async () => {
      const id = random();
      const [key, value] = rnd.one(fieldEdits)!;
      if (id) rnd.next() < 0.1 ? rewrite(id, (t) => t.replace('status: "active"', 'status: "triggered"'), 'wait triggered') : rewrite(id, (t) => setKey(t, key, value()), key);
    }],
    [1, async () => {
      // Odd files: an id in two files, a record that does not parse, a name that is not its id, stray names.
      const id = random(), kind = rnd.int(4);
      if (!id) return;
      const text = readFileSync(file(id), 'utf8');
      const other = join(work, kind === 0 ? `w-d${rnd.int(999)}.md` : kind === 2 ? `w-r${rnd.int(999)}.md` : rnd.one([`${id}.md~`, `.${id}.md.swp`, 'notes.txt'])!);
      if (kind === 1) writeFileSync(file(id), text.replace(/^status: .*$/m, '<<<<<<< HEAD\nstatus: "open"\n=======\nstatus: "done"\n>>>>>>> other'));
      else if (kind === 2) renameSync(file(id), other);
      else writeFileSync(other, kind === 0 ? text : 'stray');
      log.push(`hand: odd file ${kind} ${id}`);
      // A problem record stops every patch: mostly put right a step or two later.
      undo.push(() => (rmSync(other, { force: true }), writeFileSync(file(id), text), log.push(`hand: odd file put right ${id}`)));
    }],
    [2, async () => {
      // Links: a record that is a symbolic link to a file outside, or a file with a second hard link
      // outside; each target is then written through the other name (no event in the work folder).
      // (Not with a keeper for a hard link: it sees such a write only at its next sweep, docs/frontier.md.)
      const id = random();
      if (!id) return;
      const outside = join(tempDir(), 'outside.md');
      let link = file(id);
      if (keeper || rnd.next() < 0.5) {
        link = join(work, `w-s${rnd.int(999)}.md`);
        writeFileSync(outside, readFileSync(file(id), 'utf8').replace(/^id: .*$/m, `id: "${basename(link, '.md')}"`));
        symlinkSync(outside, link);
      } else linkSync(file(id), outside);
      log.push(`hand: ${link === file(id) ? 'hard link outside to' : 'symlink to a file outside as'} ${basename(link)}`);
      undo.push(() => {
        writeFileSync(outside, flip(readFileSync(outside, 'utf8')));
        log.push(`hand: written through the link outside of ${basename(link)}`);
        undo.push(() => (rmSync(link === file(id) ? outside : link, { force: true }), log.push(`hand: link of ${basename(link)} removed`)));
      });
    }],
    [1, () => { const c = rnd.one(commits)!; git(p.dir, 'checkout', c, '--', '.holon/agents/main/work'), log.push(`git checkout ${c.slice(0, 7)} -- .holon/agents/main/work`); }],
    [2, () => { now += (rnd.next() < 0.15 ? -20 : 5 + rnd.int(40)) * 60_000; log.push(`clock ${iso(now)}`); }],
    [3, async () => {
      // Another step while frontier calls run: what they store must never be trusted past what it saw.
      const calls = [[], ['--all'], ['--agent', 'peer']].filter(() => rnd.next() < 0.6).map((v) => holon(['frontier', '--json', ...v], { cwd: p.dir, env: env() }));
      await sleep(rnd.int(150));
      log.push('(during frontier calls:)');
      await ops[rnd.int(ops.length - 2)][1]();
      await Promise.all(calls);
    }],
  ];
  const total = ops.reduce((s, o) => s + o[0], 0);

  await same('start');
  if (lastFull) paths[`not_runnable at start: ${lastFull.counts.not_runnable}`] = 1;
  for (let step = 0; step < opts.steps; step++) {
    if (undo.length && rnd.next() < 0.6) undo.shift()!();
    let x = rnd.next() * total;
    const op = ops.find((o) => (x -= o[0]) < 0)!;
    await op[1]();
    // Now and then every file past the racy window: the cached keys are then trusted as they are.
    if (rnd.next() < 0.12) await settle(readdirSync(work).map((n) => join(work, n)));
    // Mostly after each step, sometimes after two or three: a patch then meets several changes.
    if (rnd.next() < 0.7 || step === opts.steps - 1) await same(`step ${step}`);
    else lastFull = lastAll = null;
  }
  await keeper?.stop();
  return { paths, log };
}

// FUZZ_SEEDS=10-40 (or 5,9) runs those seeds instead, FUZZ_KEEPER=1 (or late) each with a keeper, FUZZ_N=300 each
// with that many items (past some 200 the default view's cap leaves entries out): for a longer hunt.
const range = process.env.FUZZ_SEEDS?.split(',').flatMap((r) => {
  const [a, b = a] = r.split('-').map(Number);
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
});

describe.runIf(range)('the frontier fast path, fuzzed: the seeds asked for', () => {
  for (const seed of range ?? []) {
    it(`seed ${seed}`, async () => {
      const { paths } = await fuzz(seed, { n: Number(process.env.FUZZ_N ?? 80 + (seed % 5) * 20), steps: Number(process.env.FUZZ_STEPS ?? 40), keeper: process.env.FUZZ_KEEPER === 'late' ? 'late' : process.env.FUZZ_KEEPER === '1', contentCache: process.env.FUZZ_CC === '1' });
      console.log(`seed ${seed}:`, JSON.stringify(paths));
    }, 600_000);
  }
});

describe.skipIf(range)('the frontier fast path, fuzzed against a full evaluation', () => {
  for (const [seed, n, contentCache] of [[1, 90, false], [2, 130, true], [3, 160, false]] as const) {
    it(`seed ${seed}: ${n} items, 32 random steps${contentCache ? ', the content cache on' : ''}`, async () => {
      console.log(`seed ${seed}:`, JSON.stringify((await fuzz(seed, { n, steps: 32, contentCache })).paths));
    }, 300_000);
  }

  it('seed 4: with an index keeper beside that refreshes the answers', async () => {
    console.log('seed 4 (keeper):', JSON.stringify((await fuzz(4, { n: 90, steps: 26, keeper: true })).paths));
  }, 300_000);

  // Found by the keeper seeds: a kept listing put names added since its snapshot last, and the cycle
  // search, which then followed the listing's order, missed w-a0 (on w-a0 -> w-m3 -> w-m1 -> w-a0) in one
  // order and not the other. Both are fixed: names in readdir order, and every id on a cycle found in any order.
  it('with a keeper, a new item on a cycle is flagged as a full evaluation flags it', async () => {
    const p = await project();
    const item = (id: string, ...deps: string[]) => writeFileSync(p.workFile(id), record([`id: "${id}"`, `title: "${id}"`, 'agent: "main"', 'status: "open"', 'class: "advancement_task"', 'priority: "P1"', 'created_at: "2026-11-01T00:00:00Z"', 'revision: 1', 'depends_on:', ...deps.map((d) => `  - "${d}"`)]));
    item('w-m1', 'w-m2'), item('w-m2', 'w-m3'), item('w-m3', 'w-m1');
    const keeper = startKeeper(p.dir);
    await keeper.ready();
    const env = { HOLON_NOW: iso(T0), HOLON_INDEX_WAIT_MS: '60000' };
    for (let i = 0; i < 2; i++) await p.json(['frontier'], env);
    item('w-a0', 'w-m3'), item('w-m1', 'w-m2', 'w-a0');
    const fast = (await p.h(['frontier', '--json'], env)).stdout;
    renameSync(join(p.home, 'local'), join(p.home, 'local.kept'));
    const full = (await p.h(['frontier', '--json'], env)).stdout;
    await keeper.stop();
    expect(fast, diff(JSON.parse(fast), JSON.parse(full))).toBe(full);
    expect(JSON.parse(full).not_runnable.find((e: { id: string }) => e.id === 'w-a0')).toMatchObject({ code: 'dependency_cycle', detail: 'cycle: w-a0 -> w-m3 -> w-m1 -> w-a0' });
  });
});
