import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from '../helpers/cli.js';
import { runRecords, script, setRunner } from '../helpers/watch.js';

/** A WorkItem file as holon writes it, with a chosen id (ids are random otherwise). */
function item(work: string, id: string, title: string, priority: string, created: string): void {
  writeFileSync(join(work, `${id}.md`), `---\nid: "${id}"\ntitle: "${title}"\nagent: "main"\nstatus: "open"\nclass: "advancement_task"\npriority: "${priority}"\ncreated_at: "${created}"\nupdated_at: "${created}"\nrevision: 1\n---\n\n## Objective\n\n${title}\n\n## Progress\n\n`);
}

describe('new work that arrives together', () => {
  it('runs in frontier order (priority, then age), not in the order of the random ids', async () => {
    const p = await project();
    script(join(p.dir, 'agent.sh'), '#!/bin/sh\ncat >/dev/null\nholon progress "$HOLON_WORK_ITEM" "looked" >/dev/null\n');
    setRunner(p.home, 'main', '{preset: command, command: ./agent.sh}');
    const work = join(p.home, 'agents/main/work');
    // The ids sort the other way round from the order the frontier gives.
    item(work, 'w-00000001', 'later, lower', 'P3', '2026-12-01T10:00:02Z');
    item(work, 'w-00000002', 'older, lower', 'P3', '2026-12-01T10:00:01Z');
    item(work, 'w-zzzzzzzz', 'most urgent', 'P0', '2026-12-01T10:00:03Z');
    // One run per pass (an agent runs one thing at a time): three passes.
    for (let n = 0; n < 3; n++) {
      const r = await p.h(['watch', '--once']);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(runRecords(p.home).map((x) => x.work_item)).toEqual(['w-zzzzzzzz', 'w-00000002', 'w-00000001']);
  });
});
