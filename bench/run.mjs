// `npm run bench`: runs every benchmark script in bench/ (each one is standalone: `node bench/X.mjs`).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The machine's content cache of every holon run below: the bench's own folder (see lib.mjs).
process.env.HOLON_CACHE_DIR ??= fileURLToPath(new URL('./.homes/content-cache', import.meta.url));
const only = process.argv.slice(2);
const scripts = ['speed.mjs', 'core.mjs', 'frontier.mjs', 'watch.mjs', 'waits.mjs', 'threads.mjs', 'sync.mjs', 'timings.mjs', 'admission.mjs'].filter((s) => !only.length || only.some((o) => s.startsWith(o)));
let failed = 0;
for (const s of scripts) {
  const path = fileURLToPath(new URL(s, import.meta.url));
  if (!existsSync(path)) continue;
  console.log(`\n== bench/${s}`);
  const r = spawnSync(process.execPath, [path], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
