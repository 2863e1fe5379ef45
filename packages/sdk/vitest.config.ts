import { defineConfig } from 'vitest/config';

// Tests start a real Canopy server (PGlite, ~700 MB each): few forks, generous timeouts.
export default defineConfig({
  test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'], pool: 'forks', maxWorkers: 2, testTimeout: 120_000, hookTimeout: 120_000 },
});
