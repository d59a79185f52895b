// Preloaded with `node --import`: at exit, writes the process's module load list (Node built-ins and
// bundle files alike: process.moduleLoadList) to $HOLON_LOADED, one per line. No timing involved.
import { writeFileSync } from 'node:fs';

const file = process.env.HOLON_LOADED;
if (file) process.on('exit', () => writeFileSync(file, process.moduleLoadList.join('\n')));
