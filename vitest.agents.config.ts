import { defineConfig } from 'vitest/config';

// The real-agent tier (npm run test:agents): the pinned claude and codex CLIs against loopback
// stand-ins of their model APIs. One file per CLI, run side by side; the tests in a file run in order.
export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
