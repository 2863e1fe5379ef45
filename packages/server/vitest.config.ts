import { defineConfig } from 'vitest/config';

// Test files run in two forks (a PGlite database costs ~700 MB). A fork runs its files one after
// another without re-importing the server for each (isolate: false): that import was a third of
// the suite's CPU time. Tests therefore keep no state in modules between files.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
