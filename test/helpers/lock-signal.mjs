// Holds a lock while another SIGINT listener stops the work gracefully (as `holon watch` does): the
// lock must stay held through the signal and be given back when the work ends. argv: LOCAL_DIR ORDER
// (ORDER `before`: the listener is added before the first lock; `after`: while the lock is held;
// `none`: no listener, so the signal stops the process, which gives its locks back as it dies).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { withLock } from '../../dist/store/lock.js';

const [local, order] = process.argv.slice(2);
const folder = join(local, 'locks', 'x.lock');
let stop;
const stopped = new Promise((r) => (stop = r));
// A signal listener does not keep a process alive: this does, until the work ends.
const alive = setInterval(() => {}, 1000);
const listen = () => process.once('SIGINT', () => (console.log('graceful stop'), stop()));
if (order === 'before') listen();
await withLock(local, 'x', async () => {
  if (order === 'after') listen();
  console.log('locked');
  await stopped;
  console.log(`held after the signal: ${existsSync(folder)}`);
});
console.log(`given back: ${!existsSync(folder)}`);
clearInterval(alive);
