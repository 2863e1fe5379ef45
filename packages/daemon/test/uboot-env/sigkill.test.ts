/**
 * A writer process killed (SIGKILL) at random moments while it rewrites a redundant environment:
 * every time, both the daemon and fw_printenv read a valid environment holding the last value the
 * writer finished or the one it was writing, never nothing. (SIGKILL stops the process between
 * system calls; env-file.ts's ordering is what keeps each moment readable. A power cut can also
 * tear a single write, which the losing-flag test in libubootenv-interop.test.ts covers.)
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openEnvironment } from '../../src/uboot-env/index.ts';
import { fileEnvironment, HAS_FW_TOOLS } from '../support/libubootenv.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const WRITER = path.join(here, '../support/env-writer.ts');

const env = fileEnvironment('redundant', 0x10000);
afterAll(() => env.remove());

/** Starts the writer, kills it after `afterLines` finished writes plus `extraMs`, answers the last finished value. */
function runAndKill(afterLines: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    // node itself (not the tsx wrapper, which would leave its child running when killed).
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, JSON.stringify(env.locations), '40000'], { stdio: ['ignore', 'pipe', 'pipe'], cwd: here });
    let last = 0;
    let buffered = '';
    let killing = false;
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) last = Number(line);
      if (!killing && last >= afterLines) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), extraMs);
      }
    });
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(last) : reject(new Error(`writer exited without being killed: ${stderr}`))));
  });
}

describe.skipIf(!HAS_FW_TOOLS)('U-Boot environment under SIGKILL', () => {
  it('is readable after every kill, holding the last finished write or the next', async () => {
    const daemon = openEnvironment(env.locations);
    for (let round = 0; round < 12; round++) {
      // Each writer counts from 1 again; the kill comes a few writes in, at a varying moment.
      const finished = await runAndKill(3 + (round % 4), (round * 7) % 13);
      const ours = (await daemon.read()).variables;
      const theirs = env.printenv();
      expect(ours.get('padding')).toHaveLength(40000);
      expect(theirs).toEqual(ours);
      const counter = Number(ours.get('counter'));
      expect(finished).toBeGreaterThan(0);
      expect([finished, finished + 1]).toContain(counter);
    }
  });
});
