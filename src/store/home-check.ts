import { parseBudget } from '../core/budget.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkGraph } from '../core/graph-check.js';
import { graphFieldProblems } from '../core/graph-fields.js';
import { conflictLine, parseMarkdownRecord, parseYamlRecord, RecordParseError, type RecordProblem } from '../core/record-codec.js';
import { AGENTS_EXAMPLE } from './agents.js';
import { agentDir, agentsDir, listAgents, readConfig, type Home } from './home.js';
import { irregularRecord, readRecordText } from './record-file.js';
import { loadAllWork } from './work-index.js';
import { checkTimerData } from './timers.js';
import { checkEventData } from './event-store.js';
import { checkWaitReferences } from './waits-check.js';
import { checkThreads } from './threads-check.js';
import { HolonError } from '../core/errors.js';
import { watchSettings } from '../core/watch-settings.js';

/** Validators for YAML record folders (timers, inbox, ...); later record kinds register theirs here. */
export const yamlFolderCheckers: Record<string, (data: Record<string, unknown>, file: string, id: string) => RecordProblem[]> = {
  timers: checkTimerData,
  inbox: checkEventData,
  events: checkEventData,
};

function lineOfKey(file: string, key: string): number {
  try {
    const lines = readRecordText(file).split('\n');
    const i = lines.findIndex((l) => l.startsWith(`${key}:`));
    return i === -1 ? 1 : i + 1;
  } catch {
    return 1;
  }
}

function safeParse(fn: () => void): RecordProblem[] {
  try {
    fn();
    return [];
  } catch (err) {
    if (err instanceof RecordParseError) return [err.problem];
    throw err;
  }
}

/** Every problem in the home: each record on its own, then the work graph as a whole. */
export function checkHome(home: Home): RecordProblem[] {
  const problems: RecordProblem[] = [];
  const cfg = join(home.dir, 'holon.yaml');
  problems.push(...safeParse(() => parseYamlRecord(readFileSync(cfg, 'utf8'), cfg, 'default_agent: "main"')));
  try {
    watchSettings(home.config.watch, cfg);
  } catch (err) {
    if (!(err instanceof HolonError)) throw err;
    // The line of the bad key under watch:, else of watch: itself.
    const key = /watch\.(\w+)/.exec(err.message)?.[1];
    const i = key ? readFileSync(cfg, 'utf8').split('\n').findIndex((l) => /^\s+/.test(l) && l.trim().startsWith(`${key}:`)) : -1;
    problems.push({ file: cfg, line: i >= 0 ? i + 1 : lineOfKey(cfg, 'watch'), message: err.message.replace(`${cfg}: `, ''), fix: err.hint ?? 'see docs/watch.md' });
  }
  // Issue 17: budget: and timezone: (the home was opened with defaults when they are malformed).
  try {
    readConfig(home.dir);
  } catch (err) {
    const msg = err instanceof HolonError ? err.message.replace(cfg, '').replace(/^:?\s*/, '') : '';
    if (/^(budget|unknown key budget|timezone)/.test(msg)) {
      problems.push({ file: cfg, line: lineOfKey(cfg, msg.startsWith('timezone') ? 'timezone' : 'budget'), message: msg, fix: (err as HolonError).hint ?? 'see docs/budgets.md' });
    }
  }
  const agents = listAgents(home);
  for (const entry of safeReaddir(agentsDir(home))) {
    if (!agents.includes(entry)) {
      problems.push({ file: join(agentsDir(home), entry), line: 1, message: 'agent folder without AGENTS.md', fix: `run \`holon agent add ${entry}\` to restore it, or remove the folder` });
    }
  }
  for (const a of agents) {
    const md = join(agentDir(home, a), 'AGENTS.md');
    problems.push(...safeParse(() => {
      const text = readRecordText(md);
      if (text.startsWith('---')) {
        const policy = (parseMarkdownRecord(text, md, AGENTS_EXAMPLE).data.policy ?? {}) as Record<string, unknown>;
        // Issue 17: a malformed budget default would stop every run of the agent.
        for (const key of ['budget', 'daily_budget']) {
          if (policy[key] == null) continue;
          try {
            parseBudget(policy[key], `policy.${key}`);
          } catch (err) {
            throw new RecordParseError({ file: md, line: lineOfKey(md, key), message: (err as Error).message, fix: (err as HolonError).hint ?? 'see docs/budgets.md' });
          }
        }
      }
      else if (conflictLine(text)) throw new RecordParseError({ file: md, line: conflictLine(text), message: 'git conflict marker', fix: 'resolve the merge and delete the markers' });
    }));
    const focus = join(agentDir(home, a), 'focus.yaml');
    problems.push(...safeParse(() => {
      let text: string;
      try { text = readRecordText(focus); } catch (err) { if (err instanceof RecordParseError) throw err; return; }
      parseYamlRecord(text, focus, 'work_item: "w-4f2a9c1k"');
    }));
    for (const folder of safeReaddir(agentDir(home, a))) {
      const dir = join(agentDir(home, a), folder);
      if (folder === 'threads') {
        problems.push(...checkThreads(home, a));
        continue;
      }
      if (folder === 'work') {
        for (const f of safeReaddir(dir)) {
          const odd = f.endsWith('.md') ? irregularRecord(join(dir, f)) : null;
          if (odd) problems.push(odd);
          if (!f.endsWith('.md') && f !== '.gitkeep') problems.push({ file: join(dir, f), line: 1, message: 'stray file in work/ (WorkItems are ID.md)', fix: 'rename it to ID.md or move it out of work/' });
        }
        continue;
      }
      for (const f of safeReaddir(dir).filter((x) => x.endsWith('.yaml'))) {
        const file = join(dir, f);
        const odd = irregularRecord(file);
        if (odd) problems.push(odd);
        if (odd && !odd.message.startsWith('a symbolic link')) continue;
        problems.push(...safeParse(() => {
          const rec = parseYamlRecord(readRecordText(file), file);
          const checker = yamlFolderCheckers[folder];
          if (checker) problems.push(...checker(rec.data, file, f.slice(0, -5)));
        }));
      }
    }
  }
  const loaded = loadAllWork(home, agents);
  problems.push(...loaded.problems);
  const nodes = loaded.items.map((i, n) => ({ id: i.id, file: loaded.files[n], depends_on: i.depends_on, successors: i.successors, superseded_by: i.superseded_by }));
  problems.push(...checkGraph(nodes, lineOfKey));
  problems.push(...checkWaitReferences(home, agents, loaded));
  loaded.items.forEach((item, n) => {
    for (const g of graphFieldProblems(item)) problems.push({ file: loaded.files[n], line: lineOfKey(loaded.files[n], g.field), message: g.message, fix: g.fix });
    if (item.extra.budget != null) {
      try {
        parseBudget(item.extra.budget, 'budget');
      } catch (err) {
        problems.push({ file: loaded.files[n], line: lineOfKey(loaded.files[n], 'budget'), message: (err as Error).message, fix: `${(err as HolonError).hint ?? 'see docs/budgets.md'}; or \`holon edit ${item.id} --budget ...\`` });
      }
    }
  });
  // A FIFO in work/ is named by the folder scan and by the loader: once is enough.
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.file}\n${p.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
