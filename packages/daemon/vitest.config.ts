import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The fleet-simulator scenarios CI runs in its PostgreSQL stage (.ci/run): with
 * CANOPY_SIMULATOR_ON_POSTGRES=1 and no DATABASE_URL (CI's PGlite pass) they are left to it, so
 * each runs once per CI run; anywhere else they run on whatever database the run has.
 */
const SIMULATOR_SCENARIOS = ['test/rollouts-end-to-end.test.ts', 'test/soak-end-to-end.test.ts', 'test/penalty-box-end-to-end.test.ts', 'test/concurrency-cap-end-to-end.test.ts'];
const leftToPostgres = process.env.CANOPY_SIMULATOR_ON_POSTGRES === '1' && !process.env.DATABASE_URL;

// Unit tests sit beside the code (src/**/*.test.ts); process tests in test/ start a real server
// (PGlite, ~700 MB) and real daemon processes: one fork at a time, generous timeouts for a loaded machine.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 1,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(leftToPostgres ? SIMULATOR_SCENARIOS : [])],
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
