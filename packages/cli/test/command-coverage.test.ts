/**
 * Every command of the exported command tree has run successfully (exit 0) in some test of this
 * suite, against the real server those tests start (local commands, x509 and config, need none).
 *
 * Why a record and not a list kept by hand: a list says what someone meant to test and goes stale
 * the day a test is changed. Here the tests' own `canopy()` calls write down each command whose
 * action ran and exited 0 (test/support/run-canopy.ts); this file runs after all the others
 * (its own project, a later group in vitest.config.ts) and compares that record with the tree.
 * A new command without a test, or a test that stops running one, fails here by name.
 *
 * Only a full run can say a command is untested, so a run of some files only (vitest run
 * test/x509.test.ts ...) skips this check and says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readCommandLog, removeCommandLog } from './support/command-log';
import { commandPaths } from './support/command-paths';

const thisFile = path.basename(__filename);
const testFiles = fs.readdirSync(__dirname).filter((name) => name.endsWith('.test.ts') && name !== thisFile);

afterAll(removeCommandLog);

it('every command of the command tree ran against a real server in some test', (context) => {
  const log = readCommandLog();
  const notRun = testFiles.filter((name) => !log.started.has(name));
  if (notRun.length > 0) return context.skip(`partial run (${notRun.join(', ')} did not run): command coverage is only checked on a full run`);

  const leaves = commandPaths.filter((p) => p.leaf).map((p) => p.words.join(' '));
  expect(leaves.length).toBeGreaterThan(80);
  const untested = leaves.filter((command) => !log.ran.has(command));
  expect(untested, `commands no test ran successfully:\n  ${untested.join('\n  ')}`).toEqual([]);
});
