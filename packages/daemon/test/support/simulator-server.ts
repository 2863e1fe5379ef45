/**
 * A real server and a simulator work dir for one test file, made before its tests and removed
 * after; `target()` is what simulate() needs to reach the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../../server/src/config';
import { startTestServer, type TestServer } from '../../../server/test/support/server';
import { simulatorWorkDir } from '../../src/simulator/simulate';

export interface SimulatorServer {
  readonly t: TestServer;
  readonly workDir: string;
  target(): { adminUrl: string; apiKey: string; deviceUrl: string; serverCaPem: string; workDir: string };
}

export function useSimulatorServer(overrides: () => Promise<Partial<Config>> | Partial<Config> = () => ({})): SimulatorServer {
  let t: TestServer | undefined;
  let workDir: string | undefined;
  beforeAll(async () => {
    t = await startTestServer(await overrides());
    workDir = simulatorWorkDir(os.tmpdir());
  });
  afterAll(async () => {
    await t?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });
  return {
    get t() {
      return t!;
    },
    get workDir() {
      return workDir!;
    },
    target: () => ({ adminUrl: t!.url, apiKey: t!.apiKey, deviceUrl: t!.deviceUrl, serverCaPem: t!.deviceServerCaPem, workDir: workDir! }),
  };
}

/** Polls `done` until it holds, failing after `seconds` with what was awaited. */
export async function until(what: string, done: () => boolean | Promise<boolean>, seconds: number, everyMs = 200): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
