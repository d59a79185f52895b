// Takes a record's lock the way a writer does, says so, then hangs until killed.
import { openHome } from '../../dist/store/home.js';
import { withLock } from '../../dist/store/lock.js';

const [homeDir, name] = process.argv.slice(2);
const home = openHome({ home: homeDir, cwd: process.cwd(), env: {} });
await withLock(home.local, name, () => {
  process.stdout.write('locked\n');
  return new Promise(() => setInterval(() => {}, 1000));
});
