/**
 * The detached supervisor of one `holon thread send`: runs the command to its end (child, git check,
 * result record, event) and exits. Started as `node thread-supervisor.js HOME_DIR AGENT THREAD COMMAND`;
 * it outlives the terminal that sent the command.
 */
import { dirname, join } from 'node:path';
import { readConfig, type Home } from '../store/home.js';
import { failedResult } from '../core/threads.js';
import { executeCommand, finishCommand } from './threads.js';

const [homeDir, agent, thread, command] = process.argv.slice(2);
const home: Home = { dir: homeDir, root: dirname(homeDir), local: join(homeDir, 'local'), config: readConfig(homeDir) };
executeCommand(home, agent, thread, command).then(
  () => process.exit(0),
  async (err: Error) => {
    // Recorded as the command's failure, so the thread does not stay `running` until a tick notices.
    const why = `holon could not run the command: ${err.message}`;
    await finishCommand(home, agent, thread, command, { result: failedResult(why), errors: [why], raw: null }, Date.now()).catch(() => undefined);
    process.exit(1);
  },
);
