import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machineCacheDir } from '../../src/store/cache-dir.js';

describe('the machine cache folder', () => {
  it('is HOLON_CACHE_DIR, else XDG_CACHE_HOME/holon, else ~/.cache/holon; none with HOLON_CACHE_DIR=off', () => {
    expect(machineCacheDir({ HOLON_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(machineCacheDir({ XDG_CACHE_HOME: '/x' })).toBe(join('/x', 'holon'));
    expect(machineCacheDir({ HOLON_CACHE_DIR: 'off' })).toBe(null);
    // $HOME is read without node:os where homedir() would give the same folder.
    expect(machineCacheDir({})).toBe(join(homedir(), '.cache', 'holon'));
  });
});
