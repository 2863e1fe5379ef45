import { defineConfig } from 'vitest/config';

// Unit tests sit beside the code (src/**/*.test.ts); process tests in test/ start a real server
// (PGlite, ~700 MB) and real daemon processes: one fork at a time, generous timeouts for a loaded machine.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 1,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
