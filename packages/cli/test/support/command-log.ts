/**
 * The record of which canopy commands the tests ran, for the coverage check in
 * command-coverage.test.ts. vitest.config.ts makes a fresh directory per run and hands it to every
 * worker as CANOPY_CLI_COMMAND_LOG; test files run in separate processes, so they append lines to
 * files there rather than share memory.
 *
 *   ran-<pid>.log   one command path per line ("binaries create") that ran its action and exited 0
 *   started/<file>  a marker per test file that ran, so the check can tell a full run from a partial one
 */
import fs from 'node:fs';
import path from 'node:path';

const logDir = () => process.env.CANOPY_CLI_COMMAND_LOG;

export function recordCommand(commandPath: string): void {
  const dir = logDir();
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(path.join(dir, `ran-${process.pid}.log`), `${commandPath}\n`);
}

export function markTestFileStarted(testFile: string): void {
  const dir = logDir();
  if (!dir) return;
  fs.mkdirSync(path.join(dir, 'started'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'started', path.basename(testFile)), '');
}

export interface CommandLog {
  /** Command paths that ran successfully in this run. */
  ran: Set<string>;
  /** Base names of the test files that started in this run. */
  started: Set<string>;
}

export function readCommandLog(): CommandLog {
  const dir = logDir();
  if (!dir || !fs.existsSync(dir)) return { ran: new Set(), started: new Set() };
  const ran = fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('ran-'))
    .flatMap((name) => fs.readFileSync(path.join(dir, name), 'utf8').split('\n').filter(Boolean));
  const startedDir = path.join(dir, 'started');
  const started = fs.existsSync(startedDir) ? fs.readdirSync(startedDir) : [];
  return { ran: new Set(ran), started: new Set(started) };
}

export function removeCommandLog(): void {
  const dir = logDir();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
