import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertSafeId } from '../core/ids.js';

const TEMPLATES = fileURLToPath(new URL('../../templates/', import.meta.url));

function template(name: string, agent: string): string {
  return readFileSync(join(TEMPLATES, name), 'utf8').replaceAll('{{agent}}', agent);
}

/** Writes a file only if it does not exist; returns whether it wrote. Never overwrites. */
function writeNew(path: string, text: string): boolean {
  if (existsSync(path)) return false;
  try {
    writeFileSync(path, text, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Creates the home skeleton; returns the paths it created (none on a second run). */
export function initHome(dir: string, agent: string | null): string[] {
  if (agent !== null) assertSafeId(agent, 'agent name');
  const created: string[] = [];
  if (!existsSync(dir)) created.push(dir);
  mkdirSync(join(dir, 'agents'), { recursive: true });
  if (writeNew(join(dir, 'holon.yaml'), template('holon.yaml', agent ?? 'main'))) created.push(join(dir, 'holon.yaml'));
  if (writeNew(join(dir, '.gitignore'), template('gitignore', agent ?? 'main'))) created.push(join(dir, '.gitignore'));
  if (writeNew(join(dir, '.gitattributes'), template('gitattributes', agent ?? 'main'))) created.push(join(dir, '.gitattributes'));
  if (agent !== null) created.push(...addAgent(dir, agent));
  return created;
}

/** Creates agents/NAME/ with AGENTS.md and its record folders; existing files are left alone. */
export function addAgent(dir: string, agent: string): string[] {
  assertSafeId(agent, 'agent name');
  const created: string[] = [];
  const base = join(dir, 'agents', agent);
  for (const sub of ['work', 'timers', 'inbox']) {
    const p = join(base, sub);
    if (!existsSync(p)) {
      mkdirSync(p, { recursive: true });
      created.push(p);
    }
    // Git does not keep empty folders; a .gitkeep makes the layout survive a clone.
    writeNew(join(p, '.gitkeep'), '');
  }
  if (writeNew(join(base, 'AGENTS.md'), template('AGENTS.md', agent))) created.push(join(base, 'AGENTS.md'));
  return created;
}
