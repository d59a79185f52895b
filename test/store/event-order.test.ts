import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listInbox, queuedIds } from '../../src/store/event-store.js';
import { enqueueEvent, inboxDir } from '../../src/store/events.js';
import type { Home } from '../../src/store/home.js';
import { tempDir } from '../helpers/cli.js';

describe('queued events of one second', () => {
  it('come out in the order one process queued them (an ingress burst), older records without queued_us first', () => {
    const root = tempDir('holon-events-');
    const home = { dir: root, root, local: join(root, 'local') } as Home;
    mkdirSync(join(root, 'agents/main'), { recursive: true });
    const at = Date.parse('2026-12-01T10:00:00Z');
    // A record from before queued_us existed, in the same second.
    mkdirSync(inboxDir(home, 'main'), { recursive: true });
    writeFileSync(join(inboxDir(home, 'main'), 'e-zzzzzzzz.yaml'), 'id: "e-zzzzzzzz"\nagent: "main"\nsource: "external"\nmode: "wake_hint"\nresource: "external:x"\nwork_item: null\npayload: null\nprovenance: "cli:notify"\ncreated_at: "2026-12-01T10:00:00Z"\nstatus: "queued"\nadmitted_at: null\ndisposition: null\n');
    const ids = Array.from({ length: 20 }, (_, n) => enqueueEvent(home, 'main', { source: 'external', mode: 'message', resource: 'external:x', provenance: 'ingress:ig-1', payload: `#${n}` }, at).id);
    expect(queuedIds(home, 'main')).toEqual(['e-zzzzzzzz', ...ids]);
    expect(listInbox(home, 'main').map((e) => e.id)).toEqual(['e-zzzzzzzz', ...ids]);
    expect(listInbox(home, 'main').map((e) => e.payload)).toEqual([null, ...ids.map((_, n) => `#${n}`)]);
  });
});
