/**
 * Success after a soak, end to end with the fleet simulator (packages/daemon/src/simulator):
 * simulated devices, each with its own certificate, mutual-TLS connection and the daemon's own
 * update agent, converge on r1. The fleet's faulty 30% install every release and then fail their
 * health check a little later. r2 has a health gate and no soak: every device reports `installed`
 * and the gate passes it, blind to the later failures. r3 has the same gate and a soak: the
 * daemons keep checking and reporting health, the faulty devices report `failed` within the soak,
 * and the gate (counting confirmed devices as succeeded) halts r3; the sound devices are still
 * confirmed once their soak is over. The server runs in this process, on PGlite, or on
 * PostgreSQL with DATABASE_URL.
 */
import { expect, it } from 'vitest';
import { until, useSimulatorServer } from './support/simulator-server';
import { publishRelease } from '../src/simulator/fleet-setup';
import { simulate } from '../src/simulator/simulate';

const DEVICES = Number(process.env.SOAK_DEVICES ?? 60);
const POLL_SECONDS = 2;
const SOAK_SECONDS = 6;
const BINARY_BYTES = 512;
const GATE = { halt_failure_ratio: 0.2, halt_min_reports: 20 };

const server = useSimulatorServer();

it(`halts a release whose soak fails on 30% of ${DEVICES} simulated devices, which installed counts alone would pass`, { timeout: 300_000 }, async () => {
  const running: (string | null)[] = Array.from({ length: DEVICES }, () => null);
  const lines: string[] = [];
  let scenarioRan = false;
  const api = (method: string, path: string, body?: unknown) => server.t.api(method, path, body);
  const rollout = async (prn: string) => (await api('GET', `/releases/${prn}/rollout`)).body.rollout;
  const faulty = Math.floor(DEVICES * 0.3);

  await simulate({
    ...server.target(),
    devices: DEVICES,
    pollSeconds: POLL_SECONDS,
    jitterSeconds: 0.5,
    binarySize: BINARY_BYTES,
    timeoutSeconds: 120,
    soakFailures: { share: 0.3, versions: ['2.0.0', '3.0.0'], passingChecks: 1 },
    write: (line) => lines.push(line),
    onTransition: (index, state) => {
      running[index] = state.running.release_prn;
    },
    afterConverged: async ({ api: admin, fleet }) => {
      scenarioRan = true;
      // r2: a gate, no soak. Every device reports installed; the gate never sees a failure.
      const r2 = await publishRelease(admin, fleet, { size: BINARY_BYTES, version: '2.0.0', release: GATE });
      await until('every device on r2', () => running.every((r) => r === r2.releasePrn), 120);
      await until('every r2 install reported', async () => (await rollout(r2.releasePrn)).succeeded === DEVICES, 60);
      expect(await rollout(r2.releasePrn)).toMatchObject({ succeeded: DEVICES, soaking: 0, soak_seconds: null, halted_at: null, reported: { installed: DEVICES, confirmed: 0, failed: 0 } });

      // r3: the same gate with a soak. The faulty devices fail within it and the gate halts r3.
      const r3 = await publishRelease(admin, fleet, { size: BINARY_BYTES, version: '3.0.0', release: { ...GATE, soak_seconds: SOAK_SECONDS } });
      await until('r3 to halt', async () => (await api('GET', `/releases/${r3.releasePrn}`)).body.release.halted_at !== null, 120);
      const atHalt = await rollout(r3.releasePrn);
      expect(atHalt.reported.failed).toBeGreaterThanOrEqual(Math.ceil(GATE.halt_min_reports * GATE.halt_failure_ratio));
      expect(atHalt.reported.failed + atHalt.reported.confirmed).toBeGreaterThanOrEqual(GATE.halt_min_reports);
      const halted = (await api('GET', '/events?type=release&subtype=halted&limit=10')).body.events.map((e: any) => e.data.data).find((d: any) => d.release === r3.releasePrn);
      expect(halted.failure_ratio).toBeGreaterThanOrEqual(GATE.halt_failure_ratio);
      // Devices that installed r3 before the halt finish their soak: the sound ones are confirmed.
      const installedR3 = running.filter((r) => r === r3.releasePrn).length;
      await until('every r3 soak to end', async () => {
        const now = await rollout(r3.releasePrn);
        return now.soaking === 0 && now.reported.failed + now.reported.confirmed === installedR3;
      }, 60);
      const end = await rollout(r3.releasePrn);
      expect(end.succeeded).toBe(end.reported.confirmed);
      const failedEvents = (await api('GET', '/events?type=device&subtype=soak_failed&limit=100')).body.events.filter((e: any) => e.data.data.release === r3.releasePrn);
      const passedEvents = (await api('GET', '/events?type=device&subtype=soak_passed&limit=100')).body.events.filter((e: any) => e.data.data.release === r3.releasePrn);
      expect(failedEvents).toHaveLength(end.reported.failed);
      expect(passedEvents).toHaveLength(end.reported.confirmed);
      expect(end.reported.failed).toBeLessThanOrEqual(faulty);
      const reports = (await api('GET', `/releases/${r3.releasePrn}/reports?status=failed&limit=100`)).body.reports;
      expect(reports.every((r: any) => r.reason.startsWith('soak: '))).toBe(true);
    },
  });
  expect(scenarioRan, lines.join('\n')).toBe(true);
});
