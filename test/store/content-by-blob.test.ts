import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentSource } from '../../src/store/content-cache.js';
import { listAll, loadListings } from '../../src/store/graph-index.js';
import { openHome } from '../../src/store/home.js';
import { tempDir } from '../helpers/cli.js';
import { graphProject } from '../helpers/graph.js';
import { freshClone } from '../helpers/clones.js';

/**
 * A load says whether every entry it gave is the parse of the blob git's index names for its file
 * (LoadedGraph.byBlob, graph-index.ts): the answer kept by content (content-answer.ts) is keyed by
 * those blobs, and kept only from such a load. A file replaced between the listing (whose numbers git
 * vouches for) and its read is parsed as its new bytes, and that load is not one.
 */

async function clonedHome() {
  const { p, ids } = await graphProject(12);
  const dir = await freshClone(p.dir);
  const home = openHome({ cwd: dir, env: {} });
  return { home, ids, work: join(home.dir, 'agents/main/work') };
}

describe('a load by blob', () => {
  it('is one when every entry is taken from the content cache or parsed from its blob\'s bytes', async () => {
    const cache = tempDir('holon-cc-');
    const { home } = await clonedHome();
    const listings = listAll(home, ['main']);
    // First: every file parsed and its text checked against its blob.
    expect(loadListings(home, listings, contentSource(home.dir, listings, { HOLON_CACHE_DIR: cache })).byBlob).toBe(true);
    // Without a content source: nothing says so.
    expect(loadListings(home, listAll(home, ['main']), 'HOLON_CACHE_DIR=off').byBlob).toBe(false);
  });

  it('is not one when a file was replaced after it was listed', async () => {
    const cache = tempDir('holon-cc-');
    const { home, ids, work } = await clonedHome();
    const listings = listAll(home, ['main']);
    const src = contentSource(home.dir, listings, { HOLON_CACHE_DIR: cache });
    // As another holon's write does: a new file renamed over the listed one.
    const file = join(work, `${ids[3]}.md`);
    writeFileSync(`${file}.tmp`, readFileSync(file, 'utf8').replace('title: "item 3"', 'title: "changed"'));
    renameSync(`${file}.tmp`, file);
    const loaded = loadListings(home, listings, src);
    expect(loaded.items.find((i) => i.id === ids[3])?.title).toBe('changed');
    expect(loaded.byBlob).toBe(false);
  });
});
