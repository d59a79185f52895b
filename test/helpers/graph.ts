import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { project } from './cli.js';
import { git } from './clones.js';

/**
 * Writes n WorkItems straight to disk (fast) for the frontier's scale and fast-path tests: done items,
 * gates and the items they hold, dependencies, claims by another holder whose leases end at 06:30,
 * deferred items due at 07:00 and branch requirements, so a clock change or an edit moves items.
 */
export function writeGraph(work: string, n: number): string[] {
  const ids = Array.from({ length: n }, (_, i) => `w-f${i.toString(32).padStart(5, '0')}`);
  ids.forEach((id, i) => {
    const lines = [`id: "${id}"`, `title: "item ${i}"`, 'agent: "main"', `status: "${i % 4 === 0 ? 'done' : 'open'}"`];
    lines.push(i % 40 === 7 ? 'class: "user_gate"' : 'class: "advancement_task"');
    if (i % 40 === 7) lines.push('decision_scope:', `  scope: "api:action:k${i % 3}"`);
    lines.push(`priority: "P${i % 5}"`, `created_at: "2026-11-01T00:${String(i % 60).padStart(2, '0')}:00Z"`, 'revision: 1');
    if (i > 0 && i % 5 === 1) lines.push('depends_on:', `  - "${ids[i - 1]}"`);
    if (i % 17 === 3) lines.push('needs_decision:', `  - "api:action:k${i % 3}"`);
    // Leases that end at 06:30 and conditions that fall due at 07:00: a clock change moves items.
    if (i % 13 === 5) lines.push('claim:', '  holder: "agent:peer"', '  claimed_at: "2026-11-30T05:00:00Z"', '  expires_at: "2026-11-30T06:30:00Z"', '  version: 1', '  epoch: 1');
    if (i % 19 === 2) lines[3] = 'status: "deferred"', lines.push('resume_when:', '  - "at:2026-11-30T07:00:00Z"');
    if (i % 23 === 4) lines.push('branch: "main"');
    writeFileSync(join(work, `${id}.md`), `---\n${lines.join('\n')}\n---\n\n## Objective\n\nitem ${i}\n\n## Progress\n\n`);
  });
  return ids;
}

/**
 * A temp project whose agent `main` holds writeGraph's `n` items, committed to a new git repository
 * (branch main); `prepare` changes the work folder before the commit.
 */
export async function graphProject(n: number, prepare?: (work: string, ids: string[]) => void) {
  const p = await project();
  const work = join(p.home, 'agents/main/work');
  const ids = writeGraph(work, n);
  prepare?.(work, ids);
  git(p.dir, 'init', '-q', '-b', 'main');
  git(p.dir, 'config', 'user.email', 't@test');
  git(p.dir, 'config', 'user.name', 'test');
  git(p.dir, 'add', '-A');
  git(p.dir, 'commit', '-qm', 'home');
  return { p, work, ids };
}
