// Creates N WorkItems through the store code the CLI uses (fast; one process). argv: homeDir agent count tag
import { openHome } from '../../dist/store/home.js';
import { createWork, newWorkId } from '../../dist/store/work-store.js';
import { blankItem } from '../../dist/cli/commands/new.js';
import { newBody } from '../../dist/core/workitem.js';

const [homeDir, agent, count, tag] = process.argv.slice(2);
const home = openHome({ home: homeDir, cwd: process.cwd(), env: {} });
for (let i = 0; i < Number(count); i++) {
  const item = blankItem(newWorkId(), agent, `${tag} item ${i}`, Date.now());
  await createWork(home, { item, body: newBody(`${tag} objective ${i}`), entries: [] });
}
