/**
 * The penalty box end to end with the fleet simulator (packages/daemon/src/simulator): simulated
 * devices, each with its own certificate, mutual-TLS connection and the daemon's own update
 * agent, converge on r1; then r2 (penalty box: 2 failures, rest REST_SECONDS) is published and
 * its install fails on the fleet's faulty 30%. Each faulty device is offered r2 exactly twice,
 * then rests (the server lists it, rollout progress counts it); no device is offered r2 again
 * before its rest ends; after the rest each is offered r2 once more, fails, and rests again.
 * The server runs in this process, on PGlite, or on PostgreSQL with DATABASE_URL.
 */
import fs from 'node:fs';
import { expect, it } from 'vitest';
import { until, useSimulatorServer } from './support/simulator-server';
import { publishRelease } from '../src/simulator/fleet-setup';
import { simulate } from '../src/simulator/simulate';

const DEVICES = Number(process.env.PENALTY_BOX_DEVICES ?? 60);
const POLL_SECONDS = 2;
const REST_SECONDS = 8;
const BINARY_BYTES = 512;

const server = useSimulatorServer();

interface Entry {
  device_prn: string;
  resting: boolean;
  rest_until: string | null;
  rests: number;
}

it(`rests the devices failing a release, ${DEVICES} simulated devices, and offers it once more after the rest`, { timeout: 300_000 }, async () => {
  /** Per device: when (ms) it was offered r2, every time. */
  const offers: number[][] = Array.from({ length: DEVICES }, () => []);
  const running: (string | null)[] = Array.from({ length: DEVICES }, () => null);
  let r2Prn = '';
  const lines: string[] = [];
  let scenarioRan = false;

  await simulate({
    ...server.target(),
    devices: DEVICES,
    pollSeconds: POLL_SECONDS,
    jitterSeconds: 0.5,
    binarySize: BINARY_BYTES,
    timeoutSeconds: 120,
    installFailures: { share: 0.3, versions: ['2.0.0'] },
    write: (line) => lines.push(line),
    onTransition: (index, state, event) => {
      if (event.type === 'offered' && r2Prn && event.job.release_prn === r2Prn) offers[index].push(Date.now());
      running[index] = state.running.release_prn;
    },
    afterConverged: async ({ api, fleet }) => {
      scenarioRan = true;
      const r2 = await publishRelease(api, fleet, { size: BINARY_BYTES, version: '2.0.0', release: { penalty_box: { failures: 2, window_seconds: null, rest_seconds: REST_SECONDS } } });
      r2Prn = r2.releasePrn;
      const box = async (): Promise<Entry[]> => (await server.t.api('GET', `/releases/${r2Prn}/penalty_box`)).body.penalty_box;

      // Every device ends on r2 or rests from it.
      await until('every device on r2 or resting', async () => running.filter((r) => r === r2Prn).length + (await box()).filter((e) => e.resting).length === DEVICES, 120);
      const first = await box();
      const faulty = DEVICES - running.filter((r) => r === r2Prn).length;
      expect(faulty).toBe(Math.round(DEVICES * 0.3));
      expect(first.filter((e) => e.resting)).toHaveLength(faulty);
      expect((await server.t.api('GET', `/releases/${r2Prn}/rollout`)).body.rollout).toMatchObject({ resting: faulty, reported: { failed: faulty } });
      // Each faulty device was offered r2 exactly twice: the second failure boxed it before its next check.
      const faultyIndexes = offers.map((o, i) => i).filter((i) => running[i] !== r2Prn);
      for (const i of faultyIndexes) expect(offers[i]).toHaveLength(2);

      // After its rest each is offered r2 once more, fails, and rests again.
      await until('every faulty device boxed a second time', async () => (await box()).filter((e) => e.rests === 2 && e.resting).length === faulty, REST_SECONDS + 60);
      // No third offer came before its device's rest ended (devices named by their simulator index).
      const restUntil = new Map(first.map((e) => [e.device_prn, Date.parse(e.rest_until!)]));
      const listed = (await server.t.api('GET', `/devices?limit=${DEVICES}`)).body.devices as { prn: string; identifier: string }[];
      const indexOf = new Map(listed.map((d) => [Number(d.identifier.split('-').pop()), d.prn]));
      for (const i of faultyIndexes) {
        expect(offers[i]).toHaveLength(3);
        expect(offers[i][2]).toBeGreaterThanOrEqual(restUntil.get(indexOf.get(i)!)!);
      }
      // The healthy devices were offered r2 once.
      for (const [i, o] of offers.entries()) if (!faultyIndexes.includes(i)) expect(o).toHaveLength(1);
    },
  });
  expect(scenarioRan, lines.join('\n')).toBe(true);
});
