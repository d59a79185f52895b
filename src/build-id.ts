import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

declare const __HOLON_BUILD_ID__: string | undefined;

/**
 * Which build of holon this is: a hash of its sources and lockfile, made by scripts/bundle.mjs (defined
 * into the bundle, and written to dist/build-id.txt for the unbundled tsc output). Caches that hold
 * computed answers key on it, so a rebuilt holon never serves an answer of the old code.
 */
export const BUILD_ID: string = typeof __HOLON_BUILD_ID__ === 'string' ? __HOLON_BUILD_ID__ : unbundledId();

/** dist/build-id.txt, or (a tsc-only build) the stat of this very file, which every tsc build rewrites. */
function unbundledId(): string {
  try {
    return readFileSync(fileURLToPath(new URL('./build-id.txt', import.meta.url)), 'utf8').trim();
  } catch {
    try {
      const st = statSync(fileURLToPath(import.meta.url));
      return `tsc:${st.mtimeMs}:${st.size}`;
    } catch {
      return 'unknown';
    }
  }
}
