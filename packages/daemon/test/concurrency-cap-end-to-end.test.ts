/**
 * The concurrency cap end to end with the fleet simulator (packages/daemon/src/simulator), with
 * a maintenance window and the penalty box in the same run: simulated devices, each with its own
 * certificate and the daemon's own update agent, converge on r1; r2 (cap CAP, a window closed
 * on the server's set clock, penalty box: one failure rests a device) is published and nobody is
 * offered it; the clock moves inside the window and the fleet moves to r2 through the cap, the
 * refused devices coming back after the server's retry_after (1 s here). The places held, sampled
 * from the database every few ms, never exceed the cap; the faulty 10% end resting. The server
 * runs in this process, on PGlite, or on PostgreSQL with DATABASE_URL.
 */
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { until, useSimulatorServer } from './support/simulator-server';
import { publishRelease } from '../src/simulator/fleet-setup';
import { simulate } from '../src/simulator/simulate';

const DEVICES = Number(process.env.CAP_DEVICES ?? 200);
const CAP = Math.max(2, Math.round(DEVICES / 20));
const POLL_SECONDS = 2;
const BINARY_BYTES = 512;
/**
 * r2's window: every day from this hour (UTC) for two hours, so the wall clock is inside it (the
 * penalty box's rests run on the wall clock); the server's clock is first set 12 h later, outside.
 */
const HOUR = new Date().getUTCHours();
const WINDOW = { start: `${String(HOUR).padStart(2, '0')}:00`, end: `${String((HOUR + 2) % 24).padStart(2, '0')}:00` };

const server = useSimulatorServer(() => ({ capRetrySeconds: 1 }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
it(`moves ${DEVICES} simulated devices through a cap of ${CAP}, inside a window, resting the faulty ones`, { timeout: 300_000 }, async () => {
  const running: (string | null)[] = Array.from({ length: DEVICES }, () => null);
  let r2Prn = '';
  let offersOfR2 = 0;
  const offersByDevice: number[] = Array.from({ length: DEVICES }, () => 0);
  const lines: string[] = [];
  let scenarioRan = false;
  const platform = server.t.server.platform;

  await simulate({
    ...server.target(),
    devices: DEVICES,
    pollSeconds: POLL_SECONDS,
    jitterSeconds: 0.5,
    binarySize: BINARY_BYTES,
    timeoutSeconds: 200,
    installFailures: { share: 0.1, versions: ['2.0.0'] },
    write: (line) => lines.push(line),
    onTransition: (index, state, event) => {
      if (event.type === 'offered' && r2Prn && event.job.release_prn === r2Prn) {
        offersOfR2++;
        offersByDevice[index]++;
      }
      running[index] = state.running.release_prn;
    },
    afterConverged: async ({ api, fleet }) => {
      scenarioRan = true;
      platform.now = () => new Date(Date.now() + 12 * 3600_000);
      try {
        const r2 = await publishRelease(api, fleet, {
          size: BINARY_BYTES,
          version: '2.0.0',
          release: {
            max_concurrent: CAP,
            slot_timeout_seconds: 600,
            maintenance_windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], ...WINDOW, time_zone: 'UTC' }],
            penalty_box: { failures: 1, window_seconds: null, rest_seconds: 3600 },
          },
        });
        r2Prn = r2.releasePrn;
        const r2Id = r2Prn.split(':').pop()!;
        // The window is closed: a few polls and nobody is offered r2.
        await sleep((POLL_SECONDS + 1) * 2000);
        expect(offersOfR2).toBe(0);

        // The database's view of the places, sampled while the fleet moves.
        let sampling = true;
        let sampledMax = 0;
        let samples = 0;
        const sampled = (async () => {
          while (sampling) {
            const result = (await platform.db.execute(sql`select count(*)::int as n from update_slots where release_id = ${r2Id} and expires_at > now()`)) as unknown as { rows: { n: number }[] };
            sampledMax = Math.max(sampledMax, Number(result.rows[0].n));
            samples++;
            await sleep(5);
          }
        })();
        delete platform.now; // the wall clock: inside the window
        const resting = async () => (await server.t.api('GET', `/releases/${r2Prn}/penalty_box`)).body.penalty_box.filter((e: { resting: boolean }) => e.resting).length;
        try {
          await until('every device on r2 or resting', async () => running.filter((r) => r === r2Prn).length + (await resting()) === DEVICES, 200);
        } finally {
          sampling = false;
          await sampled;
        }
        const faulty = Math.floor(DEVICES * 0.1);
        expect(await resting()).toBe(faulty);
        expect(running.filter((r) => r === r2Prn)).toHaveLength(DEVICES - faulty);
        expect(samples).toBeGreaterThan(20);
        expect(sampledMax).toBeLessThanOrEqual(CAP);
        expect(sampledMax).toBeGreaterThan(0);
        // Every device was offered r2 once: a refused one came back after its hint and was offered
        // it then; a faulty one failed it once and rests.
        expect(offersByDevice.every((n) => n === 1)).toBe(true);
        const healthyOffers = offersByDevice.filter((_, i) => running[i] === r2Prn);
        console.log(`offers of r2: ${offersOfR2}; per healthy device ${JSON.stringify(healthyOffers.reduce<Record<number, number>>((m, n) => ({ ...m, [n]: (m[n] ?? 0) + 1 }), {}))}; per faulty ${JSON.stringify(offersByDevice.filter((_, i) => running[i] !== r2Prn))}; places held at most ${sampledMax} of ${CAP} in ${samples} samples`);
        const rollout = (await server.t.api('GET', `/releases/${r2Prn}/rollout`)).body.rollout;
        expect(rollout, JSON.stringify(rollout)).toMatchObject({ max_concurrent: CAP, updating_now: 0, resting: faulty, succeeded: DEVICES - faulty });
      } finally {
        delete platform.now;
      }
    },
  });
  expect(scenarioRan, lines.join('\n')).toBe(true);
});
