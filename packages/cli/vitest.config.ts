import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

/** Checked after every other file has run (a later group), against the commands they recorded. */
const COVERAGE_CHECK = 'test/command-coverage.test.ts';

// A fresh directory per run for the record of commands the tests ran (test/support/command-log.ts).
// vitest evaluates this file again for each project (`extends: true`), in the same process: the
// environment variable makes every evaluation of one run agree on one directory.
process.env.CANOPY_CLI_COMMAND_LOG ??= fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cli-commands-'));
const commandLog = process.env.CANOPY_CLI_COMMAND_LOG;

// Tests start a real Canopy server (PGlite, ~700 MB each): few forks, generous timeouts (a
// server start takes minutes on a loaded shared machine; the timeouts only catch hangs).
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 300_000,
    env: { CANOPY_CLI_COMMAND_LOG: commandLog },
    setupFiles: ['test/support/command-log-setup.ts', 'test/support/remove-temporary-dirs.ts'],
    projects: [
      // Each project names its own files: `extends` concatenates arrays, so a root include would add to both.
      { extends: true, test: { name: 'commands', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, COVERAGE_CHECK], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'command-coverage', include: [COVERAGE_CHECK], sequence: { groupOrder: 1 } } },
    ],
  },
});
