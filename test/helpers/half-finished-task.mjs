// Plays a task's supervisor caught between its two steps under the task's lock: the result event is
// queued, the finished record not yet written. It writes the record when a line arrives on stdin.
import { openHome } from '../../dist/store/home.js';
import { withLock } from '../../dist/store/lock.js';
import { readTask, writeTask } from '../../dist/store/tasks.js';
import { enqueueTaskEvent } from '../../dist/runtime/tasks.js';

const [homeDir, id] = process.argv.slice(2);
const home = openHome({ home: homeDir, cwd: process.cwd(), env: {} });
await withLock(home.local, `task.${id}`, async () => {
  const cur = readTask(home, id);
  const next = { ...cur, status: 'finished', ended_at: new Date().toISOString(), exit_code: 0, signal: null, output_tail: 'done\n' };
  enqueueTaskEvent(home, next, Date.now());
  process.stdout.write('queued\n');
  await new Promise((res) => process.stdin.once('data', res));
  writeTask(home, next);
});
process.exit(0);
