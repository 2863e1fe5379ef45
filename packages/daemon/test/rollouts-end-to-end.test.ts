/**
 * A bad release meets the health gate, end to end with the fleet simulator
 * (packages/daemon/src/simulator): 200 virtual devices, each with its own certificate admitted
 * by JITP, its own kept-alive mutual-TLS connection and the daemon's own update agent, converge
 * on r1. Then r2 (halt_failure_ratio 0.2, halt_min_reports 20) is published; its install fails on
 * the fleet's faulty 30% (the simulator's installers fail version 2.0.0 on three devices of each
 * ten). The report that crosses the line halts r2; the devices that had not started never start;
 * a webhook receives `release.halted`. Then revert: every device ends on r1's bundle through its
 * normal update loop.
 *
 * r2 goes first to a canary group, as the "Rolling out safely" guide advises (a tags phase: the
 * first CANARIES devices, 30% of them faulty like the fleet), so which devices had started when
 * the gate halted it does not depend on how fast this machine is; once halted, r2 is opened to the
 * whole cohort, and the gate alone keeps it from the devices that had not started.
 * The server runs in this process, on PGlite, or on PostgreSQL with DATABASE_URL (CI runs this
 * file both ways: .ci/run).
 */
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type ApiResponse, type TestServer } from '../../server/test/support/server';
import { startReceiver, type Receiver } from '../../server/test/support/webhook-receiver';
import { publishRelease } from '../src/simulator/fleet-setup';
import { simulate, simulatorWorkDir } from '../src/simulator/simulate';
import { until } from './support/simulator-server';

const DEVICES = 200;
const CANARIES = 40;
/** Long enough that 200 devices polling leave the machine time for the rollout itself. */
const POLL_SECONDS = 8;
const BINARY_BYTES = 1024;

let t: TestServer;
let receiver: Receiver;
let workDir: string;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile] });
  workDir = simulatorWorkDir(os.tmpdir());
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** What the test sees of each device, from its update agent's saved transitions. */
interface Seen {
  checks: number;
  runningBundle: string | null;
  runningRelease: string | null;
  idle: boolean;
  /** The number of the check (1-based) that was offered each release, latest offer kept. */
  offeredAt: Map<string, number>;
}

it(`halts a release failing on 30% of ${DEVICES} simulated devices, keeps it from the rest, and reverts every device`, { timeout: 600_000 }, async () => {
  const hook = await t.api('POST', '/webhooks', { url: receiver.url, enabled_events: ['release.halted'] });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  const seen: Seen[] = Array.from({ length: DEVICES }, () => ({ checks: 0, runningBundle: null, runningRelease: null, idle: true, offeredAt: new Map() }));
  const lines: string[] = [];
  let scenarioRan = false;

  const summary = await simulate({
    adminUrl: t.url,
    apiKey: t.apiKey,
    deviceUrl: t.deviceUrl,
    serverCaPem: t.deviceServerCaPem,
    devices: DEVICES,
    pollSeconds: POLL_SECONDS,
    jitterSeconds: 1,
    binarySize: BINARY_BYTES,
    timeoutSeconds: 120,
    workDir,
    installFailures: { share: 0.3, versions: ['2.0.0'] },
    write: (line) => lines.push(line),
    onTransition: (index, state, event) => {
      const device = seen[index];
      if (event.type === 'checked') device.checks++;
      if (event.type === 'offered' && event.job.release_prn) device.offeredAt.set(event.job.release_prn, device.checks);
      device.runningBundle = state.running.bundle_prn;
      device.runningRelease = state.running.release_prn;
      device.idle = state.phase.name === 'idle';
    },
    afterConverged: async ({ api, fleet, release: r1 }) => {
      scenarioRan = true;
      expect(seen.every((d) => d.runningRelease === r1.releasePrn)).toBe(true);

      // The canary group: the first CANARIES devices by their index in the simulated fleet.
      const identifiers = new Map<string, number>();
      let page: string | null = null;
      do {
        const listed: ApiResponse = await t.api('GET', `/devices?limit=100${page ? `&page=${encodeURIComponent(page)}` : ''}`);
        expect(listed.status, JSON.stringify(listed.body)).toBe(200);
        for (const device of listed.body.devices) identifiers.set(device.prn, Number(device.identifier.split('-').pop()));
        page = listed.body.next_page;
      } while (page);
      expect(identifiers.size).toBe(DEVICES);
      const canaries = [...identifiers].filter(([, index]) => index < CANARIES);
      for (const [prn] of canaries) expect((await t.api('PATCH', `/devices/${prn}`, { tags: ['simulated', 'canary'] })).status).toBe(200);

      const r2 = await publishRelease(api, fleet, {
        size: BINARY_BYTES,
        version: '2.0.0',
        release: { phase_mode: 'tags', phase_tags: ['canary'], halt_failure_ratio: 0.2, halt_min_reports: 20 },
      });
      await until('r2 to halt', async () => (await t.api('GET', `/releases/${r2.releasePrn}`)).body.release.disabled, 120, 100);
      const halted = (await t.api('GET', `/releases/${r2.releasePrn}`)).body.release;
      expect(halted.halted_at).not.toBeNull();
      // Opened to the whole cohort: only the gate stands between r2 and the other devices now.
      expect((await t.api('PATCH', `/releases/${r2.releasePrn}`, { phase_value: 1 })).status).toBe(200);
      const checksAtHalt = seen.map((d) => d.checks);

      // Every device checks twice more: the second of those began after the halt and the opening.
      await until('two more checks of every device', () => seen.every((d, i) => d.checks >= checksAtHalt[i] + 2), 4 * POLL_SECONDS + 60, 100);
      const started = seen.filter((d) => d.offeredAt.has(r2.releasePrn));
      // A check under way when the halt landed may still have been offered r2; no later one was.
      const lateOffers = seen.filter((d, i) => (d.offeredAt.get(r2.releasePrn) ?? 0) > checksAtHalt[i] + 1);
      expect(lateOffers.length).toBe(0);
      expect(started.length).toBeGreaterThanOrEqual(20);
      expect(seen.every((d, i) => i < CANARIES || !d.offeredAt.has(r2.releasePrn))).toBe(true);
      // The devices that had not started still run r1.
      for (const device of seen.filter((d) => !d.offeredAt.has(r2.releasePrn))) expect(device.runningRelease).toBe(r1.releasePrn);

      // The server counted what the devices did: the faulty ones failed, the others installed.
      const rollout = (await t.api('GET', `/releases/${r2.releasePrn}/rollout`)).body.rollout;
      expect(rollout).toMatchObject({ cohort_devices: DEVICES, halt_reason: 'failure_ratio', disabled: true, eligible: 0 });
      const onR2 = seen.filter((d) => d.runningRelease === r2.releasePrn).length;
      expect(rollout.reported.installed).toBe(onR2);
      expect(rollout.reported.failed).toBe(started.length - onR2);
      expect(rollout.reported.failed).toBeGreaterThan(0);

      // The webhook received release.halted once, with the counts that crossed the line.
      const halts = () => receiver.requests.filter((request) => request.body?.type === 'release');
      await until('the release.halted delivery', () => halts().length > 0, 30, 100);
      const { data } = halts()[0].body.data;
      expect(halts()[0].body.data.type).toBe('halted');
      expect(data).toMatchObject({ release: r2.releasePrn, halt_failure_ratio: 0.2, halt_min_reports: 20, rolled_back: 0 });
      expect(data.installed + data.failed).toBeGreaterThanOrEqual(20);
      expect(data.failed / (data.installed + data.failed)).toBeGreaterThanOrEqual(0.2);
      // The line was crossed by the last report counted, not before it.
      expect((data.failed - 1) / (data.installed + data.failed - 1) < 0.2 || data.installed + data.failed === 20).toBe(true);

      // Revert: the devices on r2 move back to r1's bundle through their update loop.
      const reverted = await t.api('POST', `/releases/${r2.releasePrn}/revert`, { name: 'r1 again' });
      expect(reverted.status, JSON.stringify(reverted.body)).toBe(201);
      const r3 = reverted.body.release;
      expect(r3.bundle_prn).toBe(r1.bundlePrn);
      await until('every device on r1 bundle', () => seen.every((d) => d.idle && d.runningBundle === r1.bundlePrn), 4 * POLL_SECONDS + 60, 100);
      expect(seen.filter((d) => d.runningRelease === r3.prn).length).toBe(onR2);
      // And the server agrees: r3's reports count the devices that came back through it.
      const back = (await t.api('GET', `/releases/${r3.prn}/rollout`)).body.rollout;
      expect(back.reported).toMatchObject({ installed: onR2, failed: 0 });
      expect(halts().length).toBe(1);
    },
  });
  expect(scenarioRan, lines.join('\n')).toBe(true);
  expect(summary.convergeSeconds).not.toBeNull();
});
