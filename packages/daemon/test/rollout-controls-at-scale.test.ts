/**
 * The rollout controls of issue 44 at the scale: CONTROLS_DEVICES (default 1,000)
 * simulated devices through two server processes on one PostgreSQL (support/two-process-cluster.ts),
 * one release after another to the same fleet:
 *
 * - windows: a cohort window that is closed on the servers' clock offers nothing; moved into it
 *   (the processes' clock is shifted through CANOPY_TEST_CLOCK_OFFSET_FILE), every device updates;
 * - readiness: a tenth of the fleet whose readiness command says "busy" defers, the server counts
 *   the deferrals, and they end (every device updates) once the command says ready;
 * - penalty box: the tenth whose install fails is offered the release exactly twice, then rests
 *   (no third offer while the clock stays), and is offered it once more when the clock passes its rest;
 * - soak: a release every device installs, on which 30% fail their health check during the
 *   soak, is halted by the health gate, every failed report a soak failure (installs alone: none).
 *
 * The concurrency cap at this scale is in cluster-failover.test.ts. PostgreSQL only (two processes).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { publishRelease } from '../src/simulator/fleet-setup';
import { startFleet } from '../src/simulator/simulate';
import { until } from './support/simulator-server';
import { startCluster, withClusterDatabase } from './support/two-process-cluster';

const DEVICES = Number(process.env.CONTROLS_DEVICES ?? 1000);
const POLL_SECONDS = 3;
const BINARY_BYTES = 512;
const SHARE = 0.1;
/** How long one phase may take: about 40 s alone on a quiet 2-core machine, several times that beside CI's other lane. */
const PHASE_SECONDS = 480;
const onPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '');
if (!onPostgres) console.info('rollout-controls-at-scale.test.ts skipped: two server processes need a shared PostgreSQL (set DATABASE_URL=postgres://...)');

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

it.skipIf(!onPostgres)(`windows, readiness, the penalty box and soak hold for ${DEVICES} devices through two processes`, { timeout: 2_400_000 }, async () => {
  await withClusterDatabase(process.env.DATABASE_URL!, async (databaseUrl) => {
    const cleanups: (() => Promise<unknown> | unknown)[] = [];
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-controls-'));
    cleanups.push(() => fs.rmSync(scratch, { recursive: true, force: true }));
    const offsetFile = path.join(scratch, 'clock-offset');
    const busyFlag = path.join(scratch, 'busy');
    const shiftClock = (seconds: number) => fs.writeFileSync(offsetFile, String(seconds));
    shiftClock(0);
    const lines: string[] = [];
    try {
      const cluster = await startCluster(databaseUrl, cleanups, { CANOPY_TEST_CLOCK_OFFSET_FILE: offsetFile });
      const { api } = cluster;
      const running: (string | null)[] = Array.from({ length: DEVICES }, () => null);
      const offers = new Map<string, number[]>();
      const offered = (releasePrn: string) => offers.get(releasePrn) ?? Array.from({ length: DEVICES }, () => 0);
      const fleet = await startFleet({
        adminUrl: cluster.adminUrl,
        apiKey: cluster.apiKey,
        deviceUrl: cluster.deviceUrl,
        serverCaPem: cluster.serverCaPem,
        workDir: cluster.workDir,
        devices: DEVICES,
        pollSeconds: POLL_SECONDS,
        jitterSeconds: 1,
        binarySize: BINARY_BYTES,
        installFailures: { share: SHARE, versions: ['4.0.0'] },
        soakFailures: { share: 0.3, versions: ['5.0.0'], passingChecks: 1 },
        readiness: { share: SHARE, command: ['sh', '-c', `if [ -e ${busyFlag} ]; then echo busy; exit 1; fi`] },
        write: (line) => lines.push(line),
        onTransition: (index, state, event) => {
          running[index] = state.phase.name === 'idle' ? state.running.release_prn : running[index];
          if (event.type === 'offered') {
            const counts = offered(event.job.release_prn ?? '');
            counts[index]++;
            offers.set(event.job.release_prn ?? '', counts);
          }
        },
      });
      cleanups.push(() => fleet.stop());
      const log = () => lines.slice(-40).join('\n');
      const onRelease = (prn: string) => running.filter((r) => r === prn).length;
      const rollout = async (prn: string) => (await api('GET', `/releases/${prn}/rollout`)).rollout;
      const publish = (version: string, release: Record<string, unknown> = {}) => publishRelease(api, fleet.setup, { size: BINARY_BYTES, version, release });
      const r1 = await fleet.release({ timeoutSeconds: PHASE_SECONDS });
      expect(r1.installed, log()).toBe(DEVICES);

      // Windows: closed now on the servers' clock, nothing is offered; an hour and a half later, inside.
      const now = Date.now();
      await api('PATCH', `/cohorts/${fleet.cohortPrn}`, { maintenance_windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: hhmm(now + 3_600_000), end: hhmm(now + 7_200_000), time_zone: 'UTC' }] });
      const r2 = await publish('2.0.0');
      await new Promise((resolve) => setTimeout(resolve, 3 * POLL_SECONDS * 1000));
      expect(offered(r2.releasePrn).reduce((a, b) => a + b, 0), 'offers outside the window').toBe(0);
      shiftClock(5400);
      await until('every device on r2 inside the window', () => onRelease(r2.releasePrn) === DEVICES, PHASE_SECONDS);
      await api('PATCH', `/cohorts/${fleet.cohortPrn}`, { maintenance_windows: null });
      shiftClock(0);

      // Readiness: a tenth of the fleet is busy and defers; the deferrals are counted, then end.
      fs.writeFileSync(busyFlag, '');
      const busy = Math.floor(DEVICES * SHARE);
      const r3 = await publish('3.0.0');
      let seen = '';
      await until(
        'the ready devices on r3 and the busy ones deferring',
        async () => {
          const deferred = (await rollout(r3.releasePrn)).deferred;
          seen = `${onRelease(r3.releasePrn)} on r3, ${deferred} deferring`;
          return onRelease(r3.releasePrn) === DEVICES - busy && deferred === busy;
        },
        PHASE_SECONDS,
      ).catch((error: Error) => {
        throw new Error(`${error.message} (last seen: ${seen})`);
      });
      const deferrals = (await api('GET', `/releases/${r3.releasePrn}/reports?status=deferred&limit=100`)).reports;
      expect(deferrals.length).toBeGreaterThan(0);
      expect(deferrals.every((r: any) => r.reason === 'busy'), JSON.stringify(deferrals.slice(0, 3))).toBe(true);
      fs.rmSync(busyFlag);
      await until('every device on r3 once ready', () => onRelease(r3.releasePrn) === DEVICES, PHASE_SECONDS);
      await until('no deferral left', async () => (await rollout(r3.releasePrn)).deferred === 0, 60);

      // Penalty box: the faulty tenth fails r4 twice, then rests; no third offer until the clock passes the rest.
      const r4 = await publish('4.0.0', { penalty_box: { failures: 2, window_seconds: null, rest_seconds: 3600 } });
      const faulty = Math.floor(DEVICES * SHARE);
      await until('every device on r4 or resting', async () => onRelease(r4.releasePrn) === DEVICES - faulty && (await rollout(r4.releasePrn)).resting === faulty, PHASE_SECONDS);
      await new Promise((resolve) => setTimeout(resolve, 3 * POLL_SECONDS * 1000));
      const boxedOffers = offered(r4.releasePrn).filter((_, i) => running[i] !== r4.releasePrn);
      expect(boxedOffers).toHaveLength(faulty);
      expect(boxedOffers.every((n) => n === 2), `offers of the faulty devices: ${JSON.stringify(boxedOffers)}`).toBe(true);
      shiftClock(3700);
      await until('every faulty device offered r4 a third time after its rest', () => offered(r4.releasePrn).filter((n, i) => running[i] !== r4.releasePrn && n === 3).length === faulty, PHASE_SECONDS);
      shiftClock(0);

      // Soak: every device installs r5; 30% fail their health check within the soak; the gate halts r5.
      const r5 = await publish('5.0.0', { soak_seconds: 20, halt_failure_ratio: 0.2, halt_min_reports: 100 });
      await until('r5 to halt', async () => (await api('GET', `/releases/${r5.releasePrn}`)).release.halted_at !== null, PHASE_SECONDS);
      const atHalt = await rollout(r5.releasePrn);
      expect(atHalt.reported.failed).toBeGreaterThanOrEqual(20);
      const failed = (await api('GET', `/releases/${r5.releasePrn}/reports?status=failed&limit=100`)).reports;
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.every((r: any) => String(r.reason).startsWith('soak: ')), JSON.stringify(failed.slice(0, 3))).toBe(true);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${lines.slice(-40).join('\n')}`);
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }
  });
});
