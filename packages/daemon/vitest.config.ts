import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The fleet-simulator scenarios and the two-process cluster test, which `npm test` runs against
 * PostgreSQL when it has one (scripts/run-tests.mjs): CANOPY_DAEMON_SCENARIOS=skip leaves them
 * out of the daemon's suite, =only runs them alone. Unset, they run on whatever database the run
 * has (cluster-failover skips itself without PostgreSQL).
 */
const SCENARIOS = [
  'test/rollouts-end-to-end.test.ts',
  'test/soak-end-to-end.test.ts',
  'test/penalty-box-end-to-end.test.ts',
  'test/concurrency-cap-end-to-end.test.ts',
  'test/cluster-failover.test.ts',
  'test/rollout-controls-at-scale.test.ts',
];
const scenarios = process.env.CANOPY_DAEMON_SCENARIOS;

// Unit tests sit beside the code (src/**/*.test.ts); process tests in test/ start a real server
// (PGlite, ~700 MB) and real daemon processes: one fork at a time, generous timeouts for a loaded machine.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 1,
    include: scenarios === 'only' ? SCENARIOS : ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(scenarios === 'skip' ? SCENARIOS : [])],
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
