import { defineConfig } from 'vitest/config';

// API tests share one database per worker process (PGlite costs ~700 MB an instance), so
// test files run in a few forks, not one thread per file.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
