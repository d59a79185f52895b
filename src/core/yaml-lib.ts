import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { parseHolonYaml } from './holon-yaml.js';

let lib: typeof Yaml | undefined;

/**
 * The yaml library, loaded on first use. Loading it costs about 50 ms of CPU, a third of a command's
 * start; commands that find everything in their caches (a repeated `holon frontier`) never need it.
 */
export function yamlLib(): typeof Yaml {
  return (lib ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}

/** A YAML map holon wrote (its own subset, without loading the library), else the library's parse. */
export function parseYamlMap(text: string): unknown {
  return parseHolonYaml(text) ?? yamlLib().parse(text);
}
