// A real writer process for the concurrency tests: appends N progress entries to one WorkItem
// through the same store code the CLI uses. argv: homeDir itemId count tag [loop]
import { openHome } from '../../dist/store/home.js';
import { locateWork, mutateWork } from '../../dist/store/work-store.js';
import { addProgress } from '../../dist/core/workitem.js';

const [homeDir, id, count, tag, loop] = process.argv.slice(2);
const home = openHome({ home: homeDir, cwd: process.cwd(), env: {} });
const ref = locateWork(home, id);
for (let i = 0; loop === 'loop' || i < Number(count); i++) {
  await mutateWork(home, ref, Date.now(), (doc) => addProgress(doc, { at: '2026-11-30T05:00:00Z', text: `${tag} entry ${i} ${'x'.repeat(200)}` }));
  if (loop === 'loop' && i === 0) process.stdout.write('started\n');
}
