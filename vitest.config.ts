import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The real-agent tier has its own config and script (npm run test:agents).
    exclude: ['test/agents/**', '**/node_modules/**'],
    pool: 'forks',
    // Two cores: the CLI tests spawn real processes, so keep parallelism modest.
    maxWorkers: 2,
    // No test reads or fills the machine's content cache (~/.cache/holon, store/content-cache.ts):
    // off for every holon a test starts; the tests of that cache give it a temp folder of their own.
    env: { HOLON_CACHE_DIR: 'off' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
